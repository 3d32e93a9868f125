import { checkOptions, timerMs } from '../internal/arguments.js';
import { TimeoutError } from '../errors.js';
import { MeSchema, OrderSchema, WithdrawalSchema, type Me, type Order, type ParseSchema, type Withdrawal } from '../schemas.js';
import type { RawRequestOptions, RequestOptions } from './options.js';
import { callHeaders, idempotencyKey, retriesOption } from './call-headers.js';
import { pathSegment } from '../internal/path.js';
import { typeName } from '../internal/type-name.js';
import type { CallTrace } from './transport.js';

// What each public method of CheckoutClient sends, checked before anything is sent.

/** The options every call takes. */
const REQUEST_OPTIONS = ['signal', 'timeoutMs', 'headers', 'maxRetries'] as const satisfies readonly (keyof RequestOptions)[];
/** The options `request()` takes. */
const RAW_REQUEST_OPTIONS = [...REQUEST_OPTIONS, 'searchParams', 'json', 'schema', 'idempotencyKey'] as const satisfies readonly (keyof RawRequestOptions<unknown>)[];

/** A call's per-call options, checked: a `TypeError` for a bad or unknown one. */
export function checkRequestOptions<O extends RequestOptions>(options: O, known: readonly string[] = REQUEST_OPTIONS): O {
  checkOptions('call', options, known);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new TypeError('signal must be an AbortSignal');
  }
  if (options.timeoutMs !== undefined) timerMs('timeoutMs', options.timeoutMs, 0);
  if (options.headers !== undefined) callHeaders(options.headers);
  retriesOption(options.maxRetries);
  return options;
}

/** The rejection of a call that ran past its own `timeoutMs`. */
export function callTimedOut(label: string, timeoutMs: number | undefined, attempts?: number): TimeoutError {
  return new TimeoutError(`${label} did not complete within its timeoutMs (${timeoutMs} ms)`, { request: label, attempts });
}

/** What one business call sends and expects. */
export interface AuthedCall<T> {
  method: string;
  path: string;
  schema: ParseSchema<T> | undefined;
  options: RequestOptions;
  json?: unknown;
  searchParams?: RawRequestOptions<T>['searchParams'];
  key?: string | undefined;
  /** The `externalId` asked for: a record carrying another one is refused (see {@link SendOptions.externalId}). */
  externalId?: string | undefined;
}

export const newTrace = (): CallTrace => ({ attempts: 0, response: undefined, queuedMs: 0 });

export function meCall(options: RequestOptions): AuthedCall<Me> {
  return { method: 'get', path: '/auth/me', schema: MeSchema, options: checkRequestOptions(options) };
}

export function orderCall(externalId: string, options: RequestOptions): AuthedCall<Order> {
  const path = `/orders/by-external-id/${pathSegment(externalId, 'externalId')}`;
  return { method: 'get', path, schema: OrderSchema, options: checkRequestOptions(options), externalId };
}

export function withdrawalCall(externalId: string, options: RequestOptions): AuthedCall<Withdrawal> {
  const path = `/withdrawals/by-external-id/${pathSegment(externalId, 'externalId')}`;
  return { method: 'get', path, schema: WithdrawalSchema, options: checkRequestOptions(options), externalId };
}

/** A `.` or `..` segment, percent-encoded or not, between `/` or `\` (URL parsers resolve each, climbing out of the API base). */
const DOT_SEGMENT = /(?:^|[/\\])(?:\.|%2e){1,2}(?=$|[/\\])/i;
/** From the query or fragment on: dots there are not path segments. */
const QUERY = /[?#].*$/s;

/** C0 controls and DEL: URL parsers delete TAB, LF and CR, which would join `.\t.` into `..` after the checks. */
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * `apiBase` is the partner API base; the path is checked as written (no control characters, no
 * scheme, no `//`, no dot segment) and then as the URL parser reads it: the parsed URL must keep the
 * base's origin and stay below its path, whatever the parser removed or resolved.
 */
export function rawCall<T>(apiBase: string, method: string, path: string, options: RawRequestOptions<T>): AuthedCall<T> {
  if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method)) {
    throw new TypeError(`method must be an HTTP method such as "GET", got ${typeName(method)}`);
  }
  if (typeof path === 'string' && CONTROL.test(path)) {
    throw new TypeError('path must not contain control characters (TAB, LF, CR, ...): percent-encode them in the segment');
  }
  if (
    typeof path !== 'string' ||
    path === '' ||
    /^[a-z][a-z0-9+.-]*:|^\/\//i.test(path) ||
    DOT_SEGMENT.test(path.replace(QUERY, '')) ||
    !staysBelow(apiBase, path)
  ) {
    throw new TypeError('path must be a path below the API base, such as "/orders/abc/payment" (no "." or ".." segments)');
  }
  const { schema, json, searchParams } = checkRequestOptions(options, RAW_REQUEST_OPTIONS);
  if (schema !== undefined && typeof schema?.safeParse !== 'function') {
    throw new TypeError('schema must be a zod schema (anything with safeParse)');
  }
  const key = idempotencyKey(options.idempotencyKey);
  const normalized = path.startsWith('/') ? path : `/${path}`;
  return { method: method.toLowerCase(), path: normalized, schema, options, json, searchParams, key };
}

/** Whether `path`, appended to `apiBase` as the transport does, parses to a URL below the base (compared parsed, not as strings). */
function staysBelow(apiBase: string, path: string): boolean {
  const base = new URL(apiBase);
  const basePath = base.pathname.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(`${base.origin}${basePath}${path.replace(/^\/*/, '/')}`);
  } catch {
    return false;
  }
  return url.origin === base.origin && url.pathname.startsWith(`${basePath}/`);
}
