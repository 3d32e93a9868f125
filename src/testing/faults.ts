import { API_PATH } from '../client/api-base.js';
import { typeName } from '../internal/type-name.js';
import { quote } from '../internal/quote.js';
import { isStatusKind, RECORD_KINDS, STATUS_KINDS, type StatusKind } from '../kinds.js';
import { kindList, recordRead } from './fake-kinds.js';

/** The requests a fault applies to: `'token'` (POST /auth/token), `'business'` (the rest), `'any'`, a matcher or a predicate. */
export type FaultTarget = 'any' | 'token' | 'business' | FaultMatcher | ((request: FaultRequest) => boolean);

/** What the fake recognised a request as: the token exchange, `GET /auth/me`, or a record kind's status read. */
export type FaultRequestKind = 'token' | 'me' | StatusKind;

/** A request as a fault's `only` sees it. */
export interface FaultRequest {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path as received, without the query, e.g. `/api/v1/partner-api/orders/by-external-id/o-1`. */
  readonly path: string;
  /** The endpoint, or `undefined` for any other path (a partner route). */
  readonly kind: FaultRequestKind | undefined;
  /** The decoded external id of a record's status read. */
  readonly externalId: string | undefined;
}

/**
 * Aims a fault at some requests: every field given must match.
 *
 * @example
 * fake.failNext(1, 503, { only: { kind: 'order', externalId: 'o-1' } }); // a read of o-2 passes
 */
export interface FaultMatcher {
  /** The endpoint. */
  kind?: FaultRequestKind | undefined;
  /** The external id of a record's status read. */
  externalId?: string | undefined;
  /** The HTTP method, any case. */
  method?: string | undefined;
  /** The path as received or below the API base, or a RegExp tested against the path as received (no query). */
  path?: string | RegExp | undefined;
}

/** Options of `failNext`. */
export interface FailNextOptions {
  /** A `Retry-After` header for the failed responses: seconds, or an HTTP date. @default no header */
  retryAfter?: number | string | undefined;
  /** More headers for the failed responses. */
  headers?: Record<string, string> | undefined;
  /** The JSON body of the failed responses. @default { error: 'injected_fault', message: 'Injected by the fake checkout service' } */
  body?: unknown;
  /** Milliseconds to wait before answering each failed request (an abort ends the wait). @default 0 */
  delayMs?: number | undefined;
  /** Which requests count; the others pass and leave the fault waiting, so background polling does not use it up. @default 'any' */
  only?: FaultTarget | undefined;
}

/** `failNext`'s status: an HTTP status, or `'network'` for a connection dropped without a response. */
export type FaultStatus = number | 'network';

export interface Fault {
  readonly status: FaultStatus;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly delayMs: number;
  readonly applies: (request: FaultRequest) => boolean;
}

export function faultRequest(method: string, pathname: string): FaultRequest {
  const at = pathname.indexOf(API_PATH);
  const route = at === -1 ? undefined : pathname.slice(at + API_PATH.length);
  let kind: FaultRequestKind | undefined;
  let rawId: string | undefined;
  if (/\/auth\/token\/?$/.test(pathname)) kind = 'token';
  else if (route !== undefined && /^\/auth\/me\/?$/.test(route)) kind = 'me';
  else if (route !== undefined) {
    const read = recordRead(route);
    [kind, rawId] = [read?.kind, read?.rawId];
  }
  let externalId: string | undefined;
  try {
    externalId = rawId === undefined ? undefined : decodeURIComponent(rawId);
  } catch {
    externalId = undefined; // the route answers 400 for it; no matcher can name it
  }
  return { method: method.toUpperCase(), path: pathname, kind, externalId };
}

const MATCHER_KEYS = new Set(['kind', 'externalId', 'method', 'path']);
const KINDS: ReadonlySet<string> = new Set<FaultRequestKind>(['token', 'me', ...STATUS_KINDS]);

function targetTest(only: unknown): (request: FaultRequest) => boolean {
  if (only === 'any') return () => true;
  if (only === 'token') return (request) => request.kind === 'token';
  if (only === 'business') return (request) => request.kind !== 'token';
  if (typeof only === 'function') {
    const predicate = only as (request: FaultRequest) => unknown;
    return (request) => predicate(request) === true;
  }
  if (only === null || typeof only !== 'object' || Array.isArray(only)) {
    throw new TypeError(
      `failNext: only must be 'any', 'token', 'business', a matcher { kind, externalId, method, path } or a function, got ${quote(only)}`,
    );
  }
  const matcher = only as Record<string, unknown>;
  for (const key of Object.keys(matcher)) {
    if (!MATCHER_KEYS.has(key)) throw new TypeError(`failNext: only has an unknown field ${quote(key)} (kind, externalId, method, path)`);
  }
  const { kind, externalId, method, path } = matcher;
  if (kind !== undefined && !KINDS.has(kind as string)) {
    throw new TypeError(`failNext: only.kind must be ${kindList(['token', 'me'])}, got ${quote(kind)}`);
  }
  if (externalId !== undefined && (typeof externalId !== 'string' || externalId === '')) {
    throw new TypeError(`failNext: only.externalId must be a non-empty string, got ${quote(externalId)}`);
  }
  if (externalId !== undefined && kind !== undefined && !isStatusKind(kind)) {
    const records = STATUS_KINDS.map((name) => RECORD_KINDS[name].named).join(' or ');
    throw new TypeError(`failNext: only.externalId names ${records}, not a ${quote(kind)} request`);
  }
  if (method !== undefined && (typeof method !== 'string' || method === '')) {
    throw new TypeError(`failNext: only.method must be a non-empty string, got ${quote(method)}`);
  }
  if (path !== undefined && !(path instanceof RegExp) && (typeof path !== 'string' || !path.startsWith('/'))) {
    throw new TypeError(`failNext: only.path must be a RegExp or a string starting with "/", got ${quote(path)}`);
  }
  const wantedMethod = typeof method === 'string' ? method.toUpperCase() : undefined;
  return (request) =>
    (kind === undefined || request.kind === kind) &&
    (externalId === undefined || request.externalId === externalId) &&
    (wantedMethod === undefined || request.method === wantedMethod) &&
    (path === undefined || pathMatches(path, request.path));
}

function pathMatches(path: string | RegExp, received: string): boolean {
  if (path instanceof RegExp) {
    path.lastIndex = 0; // a /g or /y RegExp keeps state between tests
    return path.test(received);
  }
  if (received === path) return true;
  const at = received.indexOf(API_PATH);
  return at !== -1 && received.slice(at + API_PATH.length) === path;
}

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
    const applies = targetTest(options.only ?? 'any');
    const body = options.body ?? { error: 'injected_fault', message: `Injected by the fake checkout service (${String(status)})` };
    for (let i = 0; i < (count as number); i += 1) {
      this.#faults.push({ status: status as FaultStatus, headers, body, delayMs, applies });
    }
  }

  /** A predicate that throws applies to nothing. */
  take(request: FaultRequest): Fault | undefined {
    const index = this.#faults.findIndex((fault) => {
      try {
        return fault.applies(request);
      } catch {
        return false;
      }
    });
    if (index === -1) return undefined;
    return this.#faults.splice(index, 1)[0];
  }

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
