import ky, { isHTTPError, isNetworkError, isTimeoutError, type KyInstance, type RetryOptions } from 'ky';
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

/** ky configured once for the client, plus the mapping of every failure onto the error tree. */
export class Transport {
  readonly #ky: KyInstance;
  readonly #retry: RetryOptions;

  constructor(options: TransportOptions) {
    this.#retry = {
      limit: options.maxRetries,
      methods: ['get', 'post'], // POST only reaches ky with retry on for the token exchange
      statusCodes: RETRY_STATUSES,
      afterStatusCodes: RETRY_STATUSES,
      maxRetryAfter: MAX_RETRY_AFTER_MS,
      retryOnTimeout: true,
      jitter: true,
    };
    this.#ky = ky.create({
      prefix: options.apiBase,
      timeout: options.timeoutMs,
      throwHttpErrors: true,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
  }

  async send<T>(options: SendOptions<T>): Promise<T> {
    const label = `${options.method.toUpperCase()} ${options.path}`;
    let response: Response;
    try {
      response = await this.#ky(options.path.slice(1), {
        method: options.method,
        headers: options.headers,
        retry: options.retry ? this.#retry : 0,
        ...(options.json === undefined ? {} : { json: options.json }),
        ...(options.searchParams === undefined ? {} : { searchParams: options.searchParams }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      });
    } catch (error) {
      throw toCheckoutError(error, label, options.signal);
    }
    return readBody(response, label, options.schema, options.signal);
  }
}

/** Maps what ky or fetch threw onto the error tree; an abort rejects with the signal's reason. */
function toCheckoutError(error: unknown, label: string, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  if (isHTTPError(error)) {
    return apiErrorForStatus(error.response.status, {
      headers: error.response.headers,
      body: error.data,
      request: label,
    });
  }
  if (isTimeoutError(error)) return new TimeoutError(`${label} timed out`, { request: label });
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
async function readBody<T>(
  response: Response,
  label: string,
  schema: ParseSchema<T> | undefined,
  signal: AbortSignal | undefined,
): Promise<T> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw toCheckoutError(error, label, signal);
  }
  const init = { status: response.status, headers: response.headers, request: label };
  let data: unknown;
  if (text !== '') {
    try {
      data = JSON.parse(text);
    } catch {
      throw new ResponseValidationError(`${response.status} from ${label}: the body is not JSON`, {
        ...init,
        body: text,
        issues: [{ code: 'invalid_json', path: [], message: 'The response body is not JSON' }],
      });
    }
  }
  if (schema === undefined) return data as T;
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issues = result.error.issues.map(({ code, path, message }) => ({ code, path, message }));
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` at ${first.path.map(String).join('.')}` : '';
  throw new ResponseValidationError(
    `${response.status} from ${label}: the body does not match the expected shape${where}: ${first?.message ?? 'invalid'}`,
    { ...init, body: data, issues },
  );
}
