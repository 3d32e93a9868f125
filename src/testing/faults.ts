import { typeName } from '../internal/type-name.js';
import { quote } from '../internal/quote.js';

/**
 * Which requests a fault injected with `failNext` applies to.
 */
export type FaultTarget = 'any' | 'token' | 'business';

/**
 * Options of `failNext`.
 */
export interface FailNextOptions {
  /**
   * A `Retry-After` header for the failed responses: seconds, or an HTTP date.
   * @default no header
   */
  retryAfter?: number | string | undefined;
  /** More headers for the failed responses. */
  headers?: Record<string, string> | undefined;
  /**
   * The JSON body of the failed responses.
   * @default { error: 'injected_fault', message: 'Injected by the fake checkout service' }
   */
  body?: unknown;
  /**
   * Milliseconds to wait before answering each failed request (an abort of the request ends the wait).
   * @default 0
   */
  delayMs?: number | undefined;
  /**
   * Which requests count: `'token'` (POST /auth/token), `'business'` (everything else) or `'any'`.
   * @default 'any'
   */
  only?: FaultTarget | undefined;
}

/**
 * `failNext`'s status: an HTTP status, or `'network'` for a connection dropped without a response.
 */
export type FaultStatus = number | 'network';

export interface Fault {
  readonly status: FaultStatus;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly delayMs: number;
  readonly only: FaultTarget;
}

/** Injected failures waiting for the requests they will answer, oldest first. */
export class FaultQueue {
  #faults: Fault[] = [];

  add(count: unknown, status: unknown, options: FailNextOptions = {}): void {
    if (!Number.isInteger(count) || (count as number) < 1) {
      throw new TypeError(`failNext: count must be a whole number of at least 1, got ${quote(count)}`);
    }
    if (status !== 'network' && (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599)) {
      throw new TypeError(`failNext: status must be an HTTP status (200-599) or 'network', got ${quote(status)}`);
    }
    if (options === null || typeof options !== 'object') throw new TypeError('failNext: options must be an object');
    const headers: Record<string, string> = {};
    if (options.headers !== undefined) {
      if (options.headers === null || typeof options.headers !== 'object') throw new TypeError('failNext: headers must be an object');
      for (const [name, value] of Object.entries(options.headers)) {
        if (typeof value !== 'string') throw new TypeError(`failNext: header ${quote(name)} must be a string`);
        headers[name.toLowerCase()] = value;
      }
    }
    const retryAfter = options.retryAfter;
    if (retryAfter !== undefined) {
      const ok = typeof retryAfter === 'string' ? retryAfter !== '' : Number.isFinite(retryAfter) && retryAfter >= 0;
      if (!ok)
        throw new TypeError(`failNext: retryAfter must be seconds (a number of at least 0) or an HTTP date, got ${typeName(retryAfter)}`);
      headers['retry-after'] = String(retryAfter);
    }
    const delayMs = options.delayMs ?? 0;
    if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
      throw new TypeError(`failNext: delayMs must be a number of at least 0, got ${quote(delayMs)}`);
    }
    const only = options.only ?? 'any';
    if (only !== 'any' && only !== 'token' && only !== 'business') {
      throw new TypeError(`failNext: only must be 'any', 'token' or 'business', got ${quote(only)}`);
    }
    const body = options.body ?? { error: 'injected_fault', message: `Injected by the fake checkout service (${String(status)})` };
    for (let i = 0; i < (count as number); i += 1) {
      this.#faults.push({ status: status as FaultStatus, headers, body, delayMs, only });
    }
  }

  /** The first fault that applies to a request of `kind`, taken off the queue. */
  take(kind: 'token' | 'business'): Fault | undefined {
    const index = this.#faults.findIndex((fault) => fault.only === 'any' || fault.only === kind);
    if (index === -1) return undefined;
    return this.#faults.splice(index, 1)[0];
  }

  /** How many injected failures are still waiting. */
  get pending(): number {
    return this.#faults.length;
  }

  clear(): void {
    this.#faults = [];
  }
}

/** Resolves after `ms`, or as soon as `signal` aborts (the caller then sees the abort). */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
