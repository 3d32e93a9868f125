import ky, { isHTTPError, isNetworkError, isTimeoutError, type Options, type RetryOptions } from 'ky';
import { ApiError, apiErrorForStatus, ConnectionError, ResponseValidationError, TimeoutError } from '../errors.js';
import type { ParseSchema } from '../schemas.js';

export interface TransportOptions {
  /** The partner API base, e.g. `https://checkout.example.com/api/v1/partner-api`. */
  apiBase: string;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof globalThis.fetch | undefined;
}

export interface SendOptions<T> {
  method: string;
  /** Path below the API base, already encoded, starting with `/`. */
  path: string;
  headers: Record<string, string>;
  /** Retry on network errors, 408, 429 and 5xx (GETs and the token exchange only). */
  retry: boolean;
  schema: ParseSchema<T> | undefined;
  json?: unknown;
  searchParams?: Record<string, string | number | boolean> | URLSearchParams | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];
/** A `Retry-After` longer than this is cut to it, so a misconfigured service cannot park a call for hours. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * ky configured once for the client, plus the mapping of every failure onto the error tree.
 *
 * This is the hot path of every status read (see bench/README.md), so each request hands ky one
 * small options object built without spreads and holding only what differs from ky's defaults
 * (ky deep-merges and normalises every key it is given, for every request): no instance defaults,
 * no `prefix`, no hooks, no `method` for a GET, no `fetch` unless a custom one was given, retry
 * options built once. The body is read once, as text, then parsed.
 */
export class Transport {
  /** The API base without a trailing slash; paths are appended to it. */
  readonly #base: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof globalThis.fetch | undefined;
  /** For GETs: ky's default `methods` already hold `get`. */
  readonly #retryGet: RetryOptions;
  /** For the token exchange, the only POST sent with `retry` on. */
  readonly #retryAny: RetryOptions;

  constructor(options: TransportOptions) {
    this.#base = options.apiBase.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs;
    this.#fetch = options.fetch;
    this.#retryGet = {
      limit: options.maxRetries,
      statusCodes: RETRY_STATUSES,
      afterStatusCodes: RETRY_STATUSES,
      maxRetryAfter: MAX_RETRY_AFTER_MS,
      retryOnTimeout: true,
      jitter: true,
    };
    this.#retryAny = { ...this.#retryGet, methods: ['get', 'post'] };
  }

  async send<T>(options: SendOptions<T>): Promise<T> {
    const { method } = options;
    const init: Options = {
      headers: options.headers,
      retry: options.retry ? (method === 'get' ? this.#retryGet : this.#retryAny) : 0,
      timeout: options.timeoutMs ?? this.#timeoutMs,
    };
    if (method !== 'get') init.method = method;
    if (this.#fetch !== undefined) init.fetch = this.#fetch;
    if (options.json !== undefined) init.json = options.json;
    if (options.searchParams !== undefined) init.searchParams = options.searchParams;
    if (options.signal !== undefined) init.signal = options.signal;
    let response: Response;
    let text: string;
    try {
      // what ky's `prefix` did: one slash between the base and the path
      response = await ky(this.#base + options.path.replace(LEADING_SLASHES, '/'), init);
      text = await readText(response, init.timeout as number);
    } catch (error) {
      throw toCheckoutError(error, options);
    }
    return parseBody(response, text, options);
  }
}

/** Thrown by {@link readText} when the body does not arrive in time; mapped to `TimeoutError`. */
const BODY_TIMEOUT = Symbol('body timeout');

/**
 * The body as text within `timeoutMs`: ky's timer stops once the headers arrive, so a service that
 * sends headers and then stalls the body would otherwise hold the call (and a webhook's claim) forever.
 */
async function readText(response: Response, timeoutMs: number): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      response.body?.cancel().catch(() => undefined);
      reject(BODY_TIMEOUT);
    }, timeoutMs);
  });
  try {
    return await Promise.race([response.text(), stalled]);
  } finally {
    clearTimeout(timer);
  }
}

const LEADING_SLASHES = /^\/*/;

/** `METHOD /path`, for messages; built only when something failed. */
function labelOf(options: Pick<SendOptions<unknown>, 'method' | 'path'>): string {
  return `${options.method.toUpperCase()} ${options.path}`;
}

/** Maps what ky or fetch threw onto the error tree; an abort rejects with the signal's reason. */
function toCheckoutError(error: unknown, options: SendOptions<unknown>): unknown {
  if (options.signal?.aborted) return options.signal.reason;
  const label = labelOf(options);
  if (isHTTPError(error)) {
    return apiErrorForStatus(error.response.status, {
      headers: error.response.headers,
      body: error.data,
      request: label,
    });
  }
  if (isTimeoutError(error)) return new TimeoutError(`${label} timed out`, { request: label });
  if (error === BODY_TIMEOUT) return new TimeoutError(`${label} timed out while reading the response body`, { request: label });
  if (isNetworkError(error)) {
    const cause = error.cause;
    return new ConnectionError(`${label} failed: ${describeCause(cause)}`, { request: label, cause });
  }
  if (error instanceof ApiError) return error;
  // fetch implementations that ky does not recognise still throw a TypeError for network failures
  return new ConnectionError(`${label} failed: ${describeCause(error)}`, { request: label, cause: error });
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return 'no response';
  const inner = cause.cause instanceof Error ? cause.cause : undefined;
  const code = (inner as { code?: unknown } | undefined)?.code ?? (cause as { code?: unknown }).code;
  return typeof code === 'string' ? `${cause.message} (${code})` : cause.message;
}

/** A 2xx body, parsed as JSON and by `schema`; anything else is a {@link ResponseValidationError}. */
function parseBody<T>(response: Response, text: string, options: SendOptions<T>): T {
  let data: unknown;
  if (text !== '') {
    try {
      data = JSON.parse(text);
    } catch {
      const label = labelOf(options);
      throw new ResponseValidationError(`${response.status} from ${label}: the body is not JSON`, {
        status: response.status,
        headers: response.headers,
        request: label,
        body: text,
        issues: [{ code: 'invalid_json', path: [], message: 'The response body is not JSON' }],
      });
    }
  }
  const { schema } = options;
  if (schema === undefined) return data as T;
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const label = labelOf(options);
  const issues = result.error.issues.map(({ code, path, message }) => ({ code, path, message }));
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` at ${first.path.map(String).join('.')}` : '';
  throw new ResponseValidationError(
    `${response.status} from ${label}: the body does not match the expected shape${where}: ${first?.message ?? 'invalid'}`,
    { status: response.status, headers: response.headers, request: label, body: data, issues },
  );
}
