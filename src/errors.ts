// No error holds a request (it carries the Authorization header), not even as `cause`.

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

const BRAND = Symbol.for('checkout-partner-sdk.CheckoutError');

/** The root of every error the SDK rejects with. */
export class CheckoutError extends Error {
  /** The class name, a literal per class, so checks by name work across realms and in logs. */
  override readonly name: string = 'CheckoutError';

  /** `instanceof` across copies of the SDK (ESM and CommonJS builds): a branded class of the same name in the chain matches. */
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

/** What the SDK knows of the response (or its absence) behind an {@link ApiError}. */
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

/** An HTTP call failed. Subclasses say how; `ApiError` itself covers the statuses without one (400, 409, 422, ...). */
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
  /** HTTP attempts the call made (retries and a re-send after a 401 included, token exchanges not); `undefined` if unknown. */
  readonly attempts: number | undefined;

  constructor(message: string, init: ApiErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.headers = init.headers ?? new Headers();
    this.body = init.body;
    this.requestId = this.headers.get('x-request-id') ?? undefined;
    this.attempts = init.attempts;
  }

  /** What `JSON.stringify(error)` shows: name, message and every field, `headers` as a plain object, credentials `[redacted]`. */
  toJSON(): Record<string, unknown> {
    return { ...(this as object), name: this.name, message: this.message, headers: plainHeaders(this.headers) };
  }
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-partner-secret']);

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

/** A 404 from the client: by class, or by its name when it comes from another copy of the SDK. @internal */
export function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError || (error instanceof Error && error.name === 'NotFoundError');
}

/** 429 after the retries, or a call not sent because a `Retry-After` pause outlasts its deadline. */
export class RateLimitError extends ApiError {
  override readonly name = 'RateLimitError' as const;
  declare readonly status: number;
  readonly #retryAfterMs: number | undefined;

  constructor(message: string, init: ApiErrorInit & { retryAfterMs?: number | undefined } = {}) {
    super(message, init);
    this.#retryAfterMs = init.retryAfterMs;
  }

  /** The wait the service asked for, in milliseconds: what is left of the client's pause, else the response's `Retry-After`. */
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

/** A call refused unsent: `maxQueue` requests already wait for their turn, so the queue (and memory) stays bounded. Not retried. */
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

/** A response body (any status) passed the client's `maxResponseBytes`, counted decoded: the request was aborted. Not retried. */
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

/** A `waitFor` call ran out of time. */
export class WaitTimeoutError<T = unknown> extends CheckoutError {
  override readonly name = 'WaitTimeoutError' as const;
  /** The last record read before time ran out, or `undefined` when none was read. */
  readonly lastRecord: T | undefined;

  constructor(message: string, lastRecord: T | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.lastRecord = lastRecord;
  }
}

export function apiErrorForStatus(status: number, init: ApiErrorInit): ApiError {
  const reason = describeBody(init.body);
  return statusErrorOf(status, `${status}${init.request ? ` from ${init.request}` : ''}${reason ? `: ${reason}` : ''}`, init);
}

export function statusErrorOf(status: number, message: string, init: ApiErrorInit): ApiError {
  const full = { ...init, status };
  if (status === 401) return new AuthenticationError(message, full);
  if (status === 403) return new PermissionDeniedError(message, full);
  if (status === 404) return new NotFoundError(message, full);
  if (status === 429) return new RateLimitError(message, full);
  if (status >= 500) return new ServerError(message, full);
  return new ApiError(message, full);
}

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
