import { env } from '../internal/env.js';
import { ignoreFailure } from '../internal/ignore-failure.js';
import { escapeControl, quote } from '../internal/quote.js';

/**
 * One entry of the client's log: one per HTTP attempt, per retry and per token exchange. It never
 * holds a secret, a token, a header or a body.
 */
export interface ClientLogEntry {
  /** `attempt`: one HTTP attempt ended; `retry`: a new attempt starts after a failed one; `exchange`: a token exchange ended. */
  event: 'attempt' | 'retry' | 'exchange';
  /** The HTTP method, upper case. */
  method: string;
  /** The path below the API base, e.g. `/orders/by-external-id/order-42`. */
  path: string;
  /** The response status; `undefined` when no response arrived (for `retry`: the status of the attempt retried). */
  status: number | undefined;
  /** Milliseconds the attempt (or the whole exchange) took; for `retry`, since the failed attempt ended. */
  ms: number;
  /** The attempt's number, from 1 (for `retry`, the attempt about to start; for `exchange`, how many it took). */
  attempt: number;
  /** The service's `x-request-id`, when the response carried one. */
  requestId: string | undefined;
  /** For `retry`: how long the client waited before this attempt, in milliseconds. */
  retryInMs?: number | undefined;
  /** When the attempt (or exchange) failed without a status: `TimeoutError`, `ConnectionError`, `AbortError`, `ResponseTooLargeError`, ... */
  error?: string | undefined;
}

/**
 * Where the client reports its calls: a function, or a console-like object (`console`, pino) with
 * `debug`, `info` and `warn` methods. On an object, successful attempts go to `debug`, token
 * exchanges to `info`, retries and failed attempts to `warn`. A logger that throws (or returns a
 * promise that rejects) is ignored.
 *
 * @example
 * new CheckoutClient({ logger: console });
 * new CheckoutClient({ logger: (entry) => metrics.timing(`checkout.${entry.event}`, entry.ms) });
 */
export type ClientLogger =
  | ((entry: ClientLogEntry) => void)
  | {
      /** Gets the attempts that succeeded. */
      debug(entry: ClientLogEntry): unknown;
      /** Gets the token exchanges. */
      info(entry: ClientLogEntry): unknown;
      /** Gets the retries and the attempts that failed. */
      warn(entry: ClientLogEntry): unknown;
    };

/** Writes one entry; `undefined` means no logging. */
export type LogWriter = ((entry: ClientLogEntry) => void) | undefined;

/**
 * The client's `logger` option as one writer, or the `CHECKOUT_LOG=debug` switch (one line per
 * entry on stderr) when no logger is given. A `TypeError` for anything else.
 */
export function logWriter(logger: unknown): LogWriter {
  // operators write DEBUG as often as debug: case and surrounding spaces do not matter
  if (logger === undefined) return env('CHECKOUT_LOG')?.trim().toLowerCase() === 'debug' ? debugLine : undefined;
  if (typeof logger === 'function') return guarded((entry) => (logger as (e: ClientLogEntry) => unknown)(entry));
  const candidate = logger as Partial<Record<'debug' | 'info' | 'warn', unknown>> | null;
  if (candidate === null || typeof candidate !== 'object' || !['debug', 'info', 'warn'].every((level) => typeof candidate[level as 'debug'] === 'function')) {
    throw new TypeError('logger must be a function or an object with debug, info and warn methods (console, pino)');
  }
  const target = logger as Exclude<ClientLogger, (entry: ClientLogEntry) => void>;
  return guarded((entry) => {
    if (entry.event === 'exchange') return target.info(entry);
    if (entry.event === 'retry' || entry.error !== undefined || (entry.status !== undefined && entry.status >= 400)) return target.warn(entry);
    return target.debug(entry);
  });
}

/** A logger that throws, or (async) returns a promise that rejects, never breaks a call nor the process. */
function guarded(write: (entry: ClientLogEntry) => unknown): (entry: ClientLogEntry) => void {
  return (entry) => ignoreFailure(() => write(entry));
}

/** `CHECKOUT_LOG=debug`: one readable line per entry on stderr. */
function debugLine(entry: ClientLogEntry): void {
  const parts = [`checkout-partner-sdk ${entry.event} ${entry.method} ${entry.path}`, `status=${entry.status ?? '-'}`, `ms=${Math.round(entry.ms)}`, `attempt=${entry.attempt}`];
  if (entry.requestId !== undefined) parts.push(`requestId=${quote(entry.requestId)}`);
  if (entry.retryInMs !== undefined) parts.push(`retryInMs=${Math.round(entry.retryInMs)}`);
  // an abort reason's name is the caller's: escaped like every value from outside
  if (entry.error !== undefined) parts.push(`error=${escapeControl(entry.error)}`);
  try {
    console.error(parts.join(' '));
  } catch {
    // a closed stderr must not break a call
  }
}

/** The log entries of one send's attempts: `attempt` when one ends, `retry` when one starts after another. */
export function attemptLog(write: (entry: ClientLogEntry) => void, lowerMethod: string, path: string, redact: (requestId: string) => string) {
  const method = lowerMethod.toUpperCase();
  let started = 0;
  let previous: { status: number | undefined; endedAt: number } | undefined;
  return {
    start(attempt: number): void {
      started = performance.now();
      if (previous !== undefined) {
        const waited = started - previous.endedAt;
        write({ event: 'retry', method, path, status: previous.status, ms: waited, attempt, requestId: undefined, retryInMs: waited });
      }
    },
    end(attempt: number, response: Response | undefined, error: string | undefined): void {
      const endedAt = performance.now();
      const status = response?.status;
      previous = { status, endedAt };
      // a service may echo the credentials anywhere, its request id included: never into a log
      const raw = response?.headers.get('x-request-id');
      const requestId = raw === null || raw === undefined ? undefined : redact(raw);
      write({ event: 'attempt', method, path, status, ms: endedAt - started, attempt, requestId, ...(error === undefined ? {} : { error }) });
    },
  };
}
