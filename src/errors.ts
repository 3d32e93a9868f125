/**
 * The error tree. Everything the SDK rejects with (argument errors aside, which are `TypeError`)
 * is a `CheckoutError`. Each class sets a literal `name`, so logs and cross-realm checks work
 * without `instanceof`.
 *
 * No error here ever holds a request: a `Request` carries its Authorization header, so none is
 * ever attached, nor an error that holds one, as `cause`.
 */

import { retryAfterMs } from './internal/retry-after.js';
import { escapeControl } from './internal/quote.js';

/** A zod-style validation issue, as carried by {@link ResponseValidationError}. */
export interface ValidationIssue {
  /** zod's issue code, e.g. `invalid_type`; `invalid_json` for a body that is not JSON. */
  readonly code?: string | undefined;
  /** Where in the body: property names and array indexes from the root. */
  readonly path: readonly PropertyKey[];
  /** What did not match, in words. */
  readonly message: string;
}

/** Every copy of the SDK's error classes carries it (a registry symbol, so all copies share it). */
const BRAND = Symbol.for('checkout-partner-sdk.CheckoutError');

/** The root of every error the SDK rejects with. */
export class CheckoutError extends Error {
  /** The class name, a literal per class, so checks by name work across realms and in logs. */
  override readonly name: string = 'CheckoutError';

  /**
   * `instanceof` holds across copies of the SDK in one process (the ESM and the CommonJS build, the
   * dual package hazard): an error matches a class when it is a real instance, or when its
   * prototype chain holds a branded SDK class of the same name. Inherited by every subclass.
   */
  static override [Symbol.hasInstance]<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
    for (let proto: unknown = Object.getPrototypeOf(value); proto !== null; proto = Object.getPrototypeOf(proto)) {
      const ctor = Object.hasOwn(proto as object, 'constructor') ? (proto as { constructor: unknown }).constructor : undefined;
      if (typeof ctor === 'function' && (ctor as { [BRAND]?: unknown })[BRAND] === true && ctor.name === this.name) return true;
    }
    return false;
  }
}
// On the constructor, so every subclass inherits it (static inheritance), without a typed member.
Object.defineProperty(CheckoutError, BRAND, { value: true });

/**
 * What the SDK knows of the response (or its absence) behind an {@link ApiError}.
 */
export interface ApiErrorInit {
  /** HTTP status, or `undefined` when no response arrived. */
  status?: number | undefined;
  /** The response headers, when a response arrived. */
  headers?: Headers | undefined;
  /** The response body, parsed as JSON when it was JSON. */
  body?: unknown;
  /** `METHOD path` of the request, for the message (never a URL with credentials). */
  request?: string | undefined;
  /** How many HTTP attempts the call made before it failed. */
  attempts?: number | undefined;
  /** What caused it (never an error that holds the request and its Authorization header). */
  cause?: unknown;
}

/**
 * An HTTP call failed. Subclasses say how; `ApiError` itself is used for statuses without one
 * (400, 409, 422, ...).
 */
export class ApiError extends CheckoutError {
  override readonly name: string = 'ApiError';
  /** HTTP status, or `undefined` when no response arrived ({@link ConnectionError}, {@link TimeoutError}). */
  readonly status: number | undefined;
  /** The response headers (empty when no response arrived). */
  readonly headers: Headers;
  /** The response body: parsed JSON when it was JSON, else its text; `undefined` when empty or absent. */
  readonly body: unknown;
  /** The service's request id (`x-request-id`), when the response carries one. */
  readonly requestId: string | undefined;
  /**
   * How many HTTP attempts the call made before it failed (retries and the re-sent request after a
   * 401 included; a token exchange's own attempts not), or `undefined` when not known.
   */
  readonly attempts: number | undefined;

  constructor(message: string, init: ApiErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.headers = init.headers ?? new Headers();
    this.body = init.body;
    this.requestId = this.headers.get('x-request-id') ?? undefined;
    this.attempts = init.attempts;
  }

  /**
   * What `JSON.stringify(error)` (and a JSON logger) shows: the name, the message and every field,
   * with `headers` as a plain object (a `Headers` has no own properties, so it would show `{}`).
   * Credentials the request carried were redacted when the error was made; cookies and
   * authorization headers read `[redacted]` here.
   */
  toJSON(): Record<string, unknown> {
    return { ...(this as object), name: this.name, message: this.message, headers: plainHeaders(this.headers) };
  }
}

/** Headers whose values are credentials of their own, whoever sent them. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-partner-secret']);

/** `headers` as a plain object (repeated headers joined by `, `), credential headers redacted. */
function plainHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const shown = CREDENTIAL_HEADERS.has(name) ? '[redacted]' : value;
    // defineProperty: a `__proto__` header stays a plain key
    Object.defineProperty(out, name, {
      value: Object.hasOwn(out, name) ? `${out[name]}, ${shown}` : shown,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** 401 from POST /auth/token, or a second 401 from a business endpoint. */
export class AuthenticationError extends ApiError {
  override readonly name = 'AuthenticationError' as const;
  declare readonly status: number;
}

/** 403: the token is valid but not allowed to do this. */
export class PermissionDeniedError extends ApiError {
  override readonly name = 'PermissionDeniedError' as const;
  declare readonly status: number;
}

/** 404: no such record (or endpoint). */
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError' as const;
  declare readonly status: number;
}

/**
 * 429 after the retries, or a call not sent because the client is paused by a `Retry-After` past
 * the call's deadline. `retryAfterMs` is how long the service asked to wait, when it said.
 */
export class RateLimitError extends ApiError {
  override readonly name = 'RateLimitError' as const;
  declare readonly status: number;
  readonly #retryAfterMs: number | undefined;

  constructor(message: string, init: ApiErrorInit & { retryAfterMs?: number | undefined } = {}) {
    super(message, init);
    this.#retryAfterMs = init.retryAfterMs;
  }

  /** The wait the service asked for, in milliseconds: what is left of the client's pause, else the response's `Retry-After` (RFC 9110 delay-seconds or HTTP-date), when it sent one. */
  get retryAfterMs(): number | undefined {
    return this.#retryAfterMs ?? retryAfterMs(this.headers);
  }
}

/** 5xx after the retries. */
export class ServerError extends ApiError {
  override readonly name = 'ServerError' as const;
  declare readonly status: number;
}

/** The request never got a response (after the retries): refused, reset, DNS, TLS. */
export class ConnectionError extends ApiError {
  override readonly name = 'ConnectionError' as const;
  declare readonly status: undefined;
}

/** An attempt ran past `timeoutMs` (after the retries). */
export class TimeoutError extends ApiError {
  override readonly name = 'TimeoutError' as const;
  declare readonly status: undefined;
}

/**
 * A call refused at once, unsent: `maxQueue` requests of this client already wait for their turn
 * (`rateLimit.concurrency`, `requestsPerSecond`, a `Retry-After` pause), so a burst or a service
 * that stopped answering cannot grow the queue, and the process's memory, without bound. Not
 * retried; `maxQueue` is the bound that was reached.
 */
export class QueueFullError extends ApiError {
  override readonly name = 'QueueFullError' as const;
  declare readonly status: undefined;
  /** The client's `rateLimit.maxQueue`. */
  readonly maxQueue: number;

  constructor(message: string, init: ApiErrorInit & { maxQueue: number }) {
    super(message, init);
    this.maxQueue = init.maxQueue;
  }
}

/** A 2xx whose body is not JSON or does not match the schema. `issues` says what did not match. */
export class ResponseValidationError extends ApiError {
  override readonly name = 'ResponseValidationError' as const;
  declare readonly status: number;
  /** The schema's issues; a body that is not JSON gives one issue with code `invalid_json`. */
  readonly issues: readonly ValidationIssue[];

  constructor(message: string, init: ApiErrorInit & { issues: readonly ValidationIssue[] }) {
    super(message, init);
    this.issues = init.issues;
  }
}

/**
 * A response body (of any status) was larger than the client's `maxResponseBytes`, counted on the
 * decoded bytes: the read stopped at the limit and the request was aborted. Not retried.
 */
export class ResponseTooLargeError extends ApiError {
  override readonly name = 'ResponseTooLargeError' as const;
  declare readonly status: number;
  /** The limit that was passed, in bytes (the client's `maxResponseBytes`). */
  readonly limitBytes: number;

  constructor(message: string, init: ApiErrorInit & { limitBytes: number }) {
    super(message, init);
    this.limitBytes = init.limitBytes;
  }
}

/** `waitForOrder` / `waitForWithdrawal` ran out of time. `lastRecord` is the last record read. */
export class WaitTimeoutError<T = unknown> extends CheckoutError {
  override readonly name = 'WaitTimeoutError' as const;
  /** The last record read before time ran out, or `undefined` when none was read. */
  readonly lastRecord: T | undefined;

  constructor(message: string, lastRecord: T | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.lastRecord = lastRecord;
  }
}

/** The error of a response status, its message quoting the body's reason, so every call site maps statuses the same way. */
export function apiErrorForStatus(status: number, init: ApiErrorInit): ApiError {
  const reason = describeBody(init.body);
  return statusErrorOf(status, `${status}${init.request ? ` from ${init.request}` : ''}${reason ? `: ${reason}` : ''}`, init);
}

/** The error class of a response status, with `message` as it is (see {@link apiErrorForStatus}). */
export function statusErrorOf(status: number, message: string, init: ApiErrorInit): ApiError {
  const full = { ...init, status };
  if (status === 401) return new AuthenticationError(message, full);
  if (status === 403) return new PermissionDeniedError(message, full);
  if (status === 404) return new NotFoundError(message, full);
  if (status === 429) return new RateLimitError(message, full);
  if (status >= 500) return new ServerError(message, full);
  return new ApiError(message, full);
}

/** A short reason from an error body (`message`, `title`, `error` or `detail`), at most 200 chars. */
function describeBody(body: unknown): string | undefined {
  let text: unknown = body;
  if (body !== null && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    text = [record.message, record.title, record.error, record.detail].find((v) => typeof v === 'string');
  }
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  // a service's text may hold ESC or BEL sequences: they are shown escaped, never acted on by a terminal
  const oneLine = escapeControl(text.replace(/\s+/g, ' ').trim());
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}…` : oneLine;
}
