import { TokenCache } from './auth/token-cache.js';
import type { TokenStore } from './auth/token-store.js';
import { ApiError, AuthenticationError, CheckoutError, ResponseValidationError, WaitTimeoutError } from './errors.js';
import { sleep, untilAborted } from './internal/abort.js';
import { partnerApiBase } from './internal/api-base.js';
import { callBound } from './internal/call-bound.js';
import { callTimedOut, checkRequestOptions, meCall, newTrace, orderCall, rawCall, withdrawalCall, type AuthedCall } from './internal/calls.js';
import { retriesOption } from './internal/call-headers.js';
import { logWriter, type ClientLogger, type LogWriter } from './internal/client-log.js';
import { env } from './internal/env.js';
import { checkTransportSecurity } from './internal/insecure-http.js';
import { describe, pathSegment } from './internal/path.js';
import { timerMs } from './internal/timer-ms.js';
import { Transport, type CallTrace } from './internal/transport.js';
import type { ObservedCall } from './telemetry/client-call.js';
import { TELEMETRY_OPTIONS, type TelemetryOptions } from './telemetry/options.js';
import { Telemetry } from './telemetry/telemetry.js';
import { USER_AGENT } from './internal/user-agent.js';
import {
  TokenResponseSchema,
  type Me,
  type Order,
  type ParseSchema,
  type TokenResponse,
  type Withdrawal,
} from './schemas.js';

/** The partner secret, or a function that returns it (sync or async), called at each token exchange. */
export type PartnerSecret = string | (() => string | Promise<string>);

/** Options of {@link CheckoutClient}. Every field may also come from the environment where noted. */
export interface CheckoutClientOptions extends TelemetryOptions {
  /**
   * The checkout service's origin, e.g. `https://checkout.example.com`. `/api/v1/partner-api` is
   * appended unless already there; a trailing slash is fine.
   * @default process.env.CHECKOUT_BASE_URL
   */
  baseUrl?: string | undefined;
  /**
   * The partner's client id, sent as `x-partner-id` to POST /auth/token only.
   * @default process.env.CHECKOUT_PARTNER_ID
   */
  partnerId?: string | undefined;
  /**
   * The partner's client secret, sent as `x-partner-secret` to POST /auth/token only. A function is
   * called at each exchange, so a secret rotated by the service operator is picked up without a restart;
   * one that does not settle within `timeoutMs` fails the exchange with a `CheckoutError`.
   * @default process.env.CHECKOUT_PARTNER_SECRET
   */
  partnerSecret?: PartnerSecret | undefined;
  /**
   * How long one attempt may take, in milliseconds, headers and body, before it is aborted (its
   * connection closed) and retried when safe. At most 2^31 − 1 (the longest a timer can wait).
   * @default 30_000
   */
  timeoutMs?: number | undefined;
  /**
   * How many times a GET or the token exchange is retried after a network error (a body cut midway
   * included), a timeout, 408, 429 or 5xx, with exponential backoff and jitter, honouring
   * `Retry-After`. A `Retry-After` over 60 s, or past the call's own `timeoutMs`, fails at once.
   * Other requests are never retried.
   * @default 2
   */
  maxRetries?: number | undefined;
  /**
   * Seconds before the token's expiry at which a new one is minted; never more than half the
   * token's lifetime. The lifetime is measured on the local clock from the token response's arrival
   * (capped by the JWT's own `exp − iat`), and a token is reused for at least 1 s whatever the clocks say.
   * @default 30
   */
  tokenSkewSeconds?: number | undefined;
  /**
   * Where the access token is kept. Pass a shared store (e.g. `RedisTokenStore`) so many processes
   * share one token. The store is a cache: when it fails, or one of its operations takes longer than
   * its `lockMs` (default 5 s), the client exchanges and keeps the token itself, so a store outage
   * never fails a call.
   * @default an in-memory store private to this client
   */
  tokenStore?: TokenStore | undefined;
  /**
   * The `fetch` to use, e.g. one with a proxy agent or instrumentation. It must honour
   * `redirect: 'manual'` (Node's and every standard fetch do): a followed redirect is rejected.
   * @default globalThis.fetch
   */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * The largest response body accepted, in bytes, counted after decompression. A larger body (of
   * any status, error bodies included) is cut off there, its request aborted, and the call rejects
   * with `ResponseTooLargeError`. The default is far above any record the service sends.
   * @default 1_048_576 (1 MiB)
   */
  maxResponseBytes?: number | undefined;
  /**
   * Allow a plain `http:` `baseUrl` whose host is not loopback. Plain http sends the partner secret
   * and the token in clear text: use it only on a private network you trust. `localhost`,
   * `127.0.0.0/8` and `[::1]` (the fake service, sandboxes) are always allowed.
   * @default false
   */
  allowInsecureHttp?: boolean | undefined;
  /**
   * Receives one entry per HTTP attempt, per retry and per token exchange (method, path, status,
   * ms, attempt, requestId, retryInMs; never a secret, token, header or body): a function, or a
   * console-like object (`console`, pino). Without one, `CHECKOUT_LOG=debug` (any case) in the environment
   * prints one line per entry on stderr.
   * @default none
   */
  logger?: ClientLogger | undefined;
}

/** What {@link CheckoutClient.withResponse} tells about a successful call's response. */
export interface ResponseInfo {
  /** The HTTP status. */
  status: number;
  /** The response headers. */
  headers: Headers;
  /** The service's `x-request-id`, when the response carried one. */
  requestId: string | undefined;
  /** How many HTTP attempts the call took (retries and a re-sent request after a 401 included). */
  attempts: number;
}

/** A record with what its response said. */
export interface WithResponse<T> {
  /** The parsed record, as the plain method resolves with it. */
  data: T;
  /** What is known of the response that carried it (`requestId`, `status`, `attempts`, ...). */
  response: ResponseInfo;
}

/** The client's reads, each resolving with `{ data, response }`; see {@link CheckoutClient.withResponse}. */
export interface ResponseReads {
  /** {@link CheckoutClient.getMe}, with its response. */
  getMe(options?: RequestOptions): Promise<WithResponse<Me>>;
  /** {@link CheckoutClient.getOrderByExternalId}, with its response. */
  getOrderByExternalId(externalId: string, options?: RequestOptions): Promise<WithResponse<Order>>;
  /** {@link CheckoutClient.getWithdrawalByExternalId}, with its response. */
  getWithdrawalByExternalId(externalId: string, options?: RequestOptions): Promise<WithResponse<Withdrawal>>;
  /** {@link CheckoutClient.request}, with its response. */
  request<T = unknown>(method: string, path: string, options?: RawRequestOptions<T>): Promise<WithResponse<T>>;
}

/** Per-call options of the read methods. */
export interface RequestOptions {
  /**
   * Aborts the call, the wait for a token exchange included; it then rejects with the signal's
   * reason and is not retried. A signal already aborted sends nothing.
   */
  signal?: AbortSignal | undefined;
  /**
   * Bounds the whole call, in milliseconds: the wait for a token exchange, every attempt and every
   * retry delay. Past it the call rejects with `TimeoutError`. Each attempt is also bounded by the
   * client's `timeoutMs`.
   */
  timeoutMs?: number | undefined;
  /**
   * Headers to send with this call's request (not with the token exchange). `Authorization`,
   * `x-partner-id`, `x-partner-secret` and `Idempotency-Key` are set by the client, and `Host`,
   * `Content-Length`, `Connection`, `Keep-Alive`, `Transfer-Encoding`, `Upgrade` and `Expect` by
   * fetch: each is refused here with a `TypeError`.
   */
  headers?: Record<string, string> | undefined;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number | undefined;
}

/** Options of {@link CheckoutClient.request}. */
export interface RawRequestOptions<T> extends RequestOptions {
  /** Query string parameters. */
  searchParams?: Record<string, string | number | boolean> | URLSearchParams | undefined;
  /** A JSON body. */
  json?: unknown;
  /** A zod schema (anything with `safeParse`) the 2xx body must match; without one the parsed JSON is returned as `unknown`. */
  schema?: ParseSchema<T> | undefined;
  /**
   * Sent as `Idempotency-Key`: the service runs the operation once however many times it receives
   * the key, so a request carrying one is retried like a GET (a POST without one is sent once).
   * Use a fresh key (e.g. `crypto.randomUUID()`) per operation, and the same key to repeat it.
   */
  idempotencyKey?: string | undefined;
}

/** Options of {@link CheckoutClient.waitForOrder} and {@link CheckoutClient.waitForWithdrawal}. */
export interface WaitOptions {
  /**
   * How long to keep polling, in milliseconds, before rejecting with `WaitTimeoutError`.
   * @default 60_000
   */
  timeoutMs?: number | undefined;
  /**
   * Milliseconds between two reads.
   * @default 2_000
   */
  intervalMs?: number | undefined;
  /** Stops waiting; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');

/**
 * A typed client of the checkout service's partner API. It exchanges the partner's credentials for
 * a Bearer token, caches it, mints a new one before it expires (one exchange for any number of
 * concurrent callers), retries what is safe, and never exposes the secret.
 *
 * @example
 * const client = new CheckoutClient({ baseUrl: 'https://checkout.example.com', partnerId, partnerSecret });
 * const order = await client.getOrderByExternalId('order-42');
 * if (order.settlement?.status === 'Settled') ship(order);
 */
export class CheckoutClient {
  /** The partner API base every path is resolved against, e.g. `https://checkout.example.com/api/v1/partner-api`. */
  readonly baseUrl: string;
  /** The partner's client id (not a secret). */
  readonly partnerId: string;
  readonly #secret: PartnerSecret;
  readonly #timeoutMs: number;
  readonly #transport: Transport;
  readonly #tokens: TokenCache;
  readonly #log: LogWriter;
  readonly #telemetry: Telemetry;

  constructor(options: CheckoutClientOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`CheckoutClient options must be an object, got ${describe(options)}`);
    }
    if (options.allowInsecureHttp !== undefined && typeof options.allowInsecureHttp !== 'boolean') {
      throw new TypeError(`allowInsecureHttp must be a boolean, got ${describe(options.allowInsecureHttp)}`);
    }
    this.baseUrl = partnerApiBase(required('baseUrl', 'CHECKOUT_BASE_URL', options.baseUrl));
    checkTransportSecurity(this.baseUrl, options.allowInsecureHttp === true);
    this.partnerId = required('partnerId', 'CHECKOUT_PARTNER_ID', options.partnerId);
    this.#secret = secretOption(options.partnerSecret);
    const timeoutMs = timerMs('timeoutMs', options.timeoutMs, 30_000);
    this.#timeoutMs = timeoutMs;
    const maxResponseBytes = options.maxResponseBytes ?? 1_048_576;
    if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1) {
      throw new TypeError(`maxResponseBytes must be a whole number of bytes, at least 1, got ${String(maxResponseBytes)}`);
    }
    // the same check as a call's own maxRetries
    const maxRetries = retriesOption(options.maxRetries) ?? 2;
    const skewSeconds = options.tokenSkewSeconds ?? 30;
    if (typeof skewSeconds !== 'number' || !(skewSeconds >= 0) || !(skewSeconds * 1000 <= Number.MAX_SAFE_INTEGER)) {
      throw new TypeError(`tokenSkewSeconds must be a finite number of at least 0, got ${String(skewSeconds)}`);
    }
    if (options.fetch !== undefined && typeof options.fetch !== 'function') {
      throw new TypeError(`fetch must be a function, got ${describe(options.fetch)}`);
    }
    const store = options.tokenStore;
    if (store !== undefined && (typeof store?.get !== 'function' || typeof store.set !== 'function')) {
      throw new TypeError('tokenStore must have get(key) and set(key, token) methods');
    }
    this.#log = logWriter(options.logger);
    this.#telemetry = new Telemetry(options, this.baseUrl);
    this.#transport = new Transport({
      apiBase: this.baseUrl,
      timeoutMs,
      maxRetries,
      maxResponseBytes,
      fetch: options.fetch,
      log: this.#log,
    });
    this.#tokens = new TokenCache({
      exchange: (signal) => this.#exchange(signal),
      skewSeconds,
      store,
      key: `checkout-partner-sdk:token:${this.baseUrl}:${this.partnerId}`,
    });
  }

  /**
   * The cached access token, or a new one from POST /auth/token. Concurrent callers share one
   * exchange; a failed exchange is not cached. `signal` and `timeoutMs` bound the wait (see
   * {@link RequestOptions}); an exchange no caller waits for any more is aborted.
   */
  async getAccessToken(options: RequestOptions = {}): Promise<string> {
    const { signal, timeoutMs } = checkRequestOptions(options);
    const bound = callBound(signal, timeoutMs, () => callTimedOut('POST /auth/token', timeoutMs));
    try {
      return await this.#tokens.get(bound.signal);
    } finally {
      bound.dispose();
    }
  }

  /** Epoch milliseconds at which the cached token stops being reused (skew taken off), or `undefined` when none is cached. */
  get tokenExpiresAt(): number | undefined {
    return this.#tokens.expiresAt;
  }

  /** GET /auth/me: confirms that the credentials work and the partner API is enabled. */
  async getMe(options: RequestOptions = {}): Promise<Me> {
    return this.#authed(meCall(options), newTrace());
  }

  /**
   * GET /orders/by-external-id/{externalId}: the order's status, including `settlement.status`.
   *
   * @example
   * const order = await client.getOrderByExternalId('order-42');
   * order.settlement?.status; // 'Settled' once its crypto swap settled
   */
  async getOrderByExternalId(externalId: string, options: RequestOptions = {}): Promise<Order> {
    return this.#authed(orderCall(externalId, options), newTrace());
  }

  /** GET /withdrawals/by-external-id/{externalId}: the PIX withdrawal's status (`Completed` once settled). */
  async getWithdrawalByExternalId(externalId: string, options: RequestOptions = {}): Promise<Withdrawal> {
    return this.#authed(withdrawalCall(externalId, options), newTrace());
  }

  /**
   * Any partner API endpoint this SDK does not type yet, with the same auth, timeouts and errors.
   * `path` is relative to the API base; encode its dynamic segments (a `.` or `..` segment is
   * refused with a `TypeError`: it would leave the API base). Only GETs, and requests with
   * an `idempotencyKey`, are retried.
   *
   * @example
   * const result = await client.request('POST', `/orders/${encodeURIComponent(id)}/payment`, {
   *   json: { amount },
   *   idempotencyKey: paymentId, // the same key when the payment is tried again
   * });
   */
  async request<T = unknown>(method: string, path: string, options: RawRequestOptions<T> = {}): Promise<T> {
    return this.#authed(rawCall(method, path, options), newTrace());
  }

  /**
   * The same reads, each resolving with `{ data, response }`: `response` holds the status, headers,
   * `requestId` (the service's `x-request-id`, for support tickets) and how many attempts the call took.
   *
   * @example
   * const { data: order, response } = await client.withResponse().getOrderByExternalId('order-42');
   * log.info({ requestId: response.requestId, status: order.settlement?.status });
   */
  withResponse(): ResponseReads {
    const run = async <T>(call: () => AuthedCall<T>): Promise<WithResponse<T>> => {
      const trace = newTrace();
      const data = await this.#authed(call(), trace);
      const response = trace.response as Response;
      const info: ResponseInfo = {
        status: response.status,
        headers: response.headers,
        requestId: response.headers.get('x-request-id') ?? undefined,
        attempts: trace.attempts,
      };
      return { data, response: info };
    };
    return {
      getMe: (options = {}) => run(() => meCall(options)),
      getOrderByExternalId: (externalId, options = {}) => run(() => orderCall(externalId, options)),
      getWithdrawalByExternalId: (externalId, options = {}) => run(() => withdrawalCall(externalId, options)),
      request: (method, path, options = {}) => run(() => rawCall(method, path, options)),
    };
  }

  /**
   * Polls GET /orders/by-external-id/{externalId} until `until(order)` is true, and resolves with that
   * order. Rejects with `WaitTimeoutError` (holding the last order read) when time runs out.
   *
   * @example
   * const order = await client.waitForOrder('order-42', (o) => o.settlement?.status === 'Settled', { timeoutMs: 120_000 });
   */
  async waitForOrder(externalId: string, until: (order: Order) => boolean, options: WaitOptions = {}): Promise<Order> {
    pathSegment(externalId, 'externalId');
    return this.#waitFor('order', (o) => this.getOrderByExternalId(externalId, o), until, options);
  }

  /** Polls GET /withdrawals/by-external-id/{externalId} until `until(withdrawal)` is true; see {@link waitForOrder}. */
  async waitForWithdrawal(
    externalId: string,
    until: (withdrawal: Withdrawal) => boolean,
    options: WaitOptions = {},
  ): Promise<Withdrawal> {
    pathSegment(externalId, 'externalId');
    return this.#waitFor('withdrawal', (o) => this.getWithdrawalByExternalId(externalId, o), until, options);
  }

  /** What `JSON.stringify(client)` shows: never the secret or the token. */
  toJSON(): { baseUrl: string; partnerId: string } {
    return { baseUrl: this.baseUrl, partnerId: this.partnerId };
  }

  /** The providers the webhook handler and the status tracker default to. @internal */
  get [TELEMETRY_OPTIONS](): TelemetryOptions {
    return this.#telemetry.options;
  }

  [inspectSymbol](): string {
    return `CheckoutClient { baseUrl: '${this.baseUrl}', partnerId: '${this.partnerId}' }`;
  }

  async #exchange(signal: AbortSignal): Promise<TokenResponse> {
    const secret = typeof this.#secret === 'function' ? await this.#callSecret(this.#secret, signal) : this.#secret;
    if (typeof secret !== 'string' || secret === '') {
      throw new TypeError(`The partnerSecret function must return a non-empty string, got ${describe(secret)}`);
    }
    const trace = newTrace();
    const started = this.#log === undefined ? 0 : performance.now();
    const use = this.#telemetry.use();
    const observed = use === undefined ? undefined : (await use)?.exchange();
    try {
      const headers = { 'x-partner-id': this.partnerId, 'x-partner-secret': secret, 'user-agent': USER_AGENT };
      observed?.inject(headers);
      const send = () => this.#transport.send({ method: 'post', path: '/auth/token', headers, retry: true, schema: TokenResponseSchema, signal, trace });
      const response = await (observed === undefined ? send() : observed.run(send, trace));
      this.#logExchange(started, trace, undefined);
      return response;
    } catch (error) {
      this.#logExchange(started, trace, error);
      // a token response that failed validation may still hold a working token: keep it out of the error
      if (error instanceof ResponseValidationError) throw withoutToken(error);
      throw error;
    }
  }

  /**
   * The partnerSecret function's secret, bounded like one attempt (`timeoutMs`) and by the
   * exchange's abort: a secret manager that hangs must not hold the exchange, and every call, forever.
   */
  async #callSecret(secretFn: () => string | Promise<string>, signal: AbortSignal): Promise<unknown> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CheckoutError(`The partnerSecret function did not settle within timeoutMs (${this.#timeoutMs} ms); no token exchange was attempted`)),
        this.#timeoutMs,
      );
    });
    try {
      return await untilAborted(Promise.race([Promise.resolve().then(secretFn), timedOut]), signal);
    } catch (error) {
      if (signal.aborted || error instanceof CheckoutError) throw error;
      throw new CheckoutError('The partnerSecret function threw; no token exchange was attempted', { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  #logExchange(started: number, trace: CallTrace, error: unknown): void {
    if (this.#log === undefined) return;
    const response = trace.response ?? (error instanceof ApiError ? error : undefined);
    this.#log({
      event: 'exchange',
      method: 'POST',
      path: '/auth/token',
      status: response?.status,
      ms: performance.now() - started,
      attempt: trace.attempts,
      requestId: response?.headers.get('x-request-id') ?? undefined,
      ...(error === undefined ? {} : { error: error instanceof Error || error instanceof DOMException ? error.name : 'Error' }),
    });
  }

  /**
   * A business call with the Bearer token; a 401 drops that token, mints one new token and retries
   * once. The call's `signal` and `timeoutMs` bound all of it, the wait for an exchange included.
   */
  async #authed<T>(call: AuthedCall<T>, trace: CallTrace): Promise<T> {
    // a span and metrics per call when OpenTelemetry is on; else nothing is made (nor loaded)
    const use = this.#telemetry.use();
    const observed = use === undefined ? undefined : (await use)?.call(call.method, call.path);
    return observed === undefined ? this.#send(call, trace, undefined) : observed.run(() => this.#send(call, trace, observed), trace);
  }

  async #send<T>(call: AuthedCall<T>, trace: CallTrace, observed: ObservedCall | undefined): Promise<T> {
    const { method, path, options, key } = call;
    const { timeoutMs, maxRetries } = options;
    // the same object for every call without per-call headers: the hot path builds only the token's
    const extra = options.headers === undefined && key === undefined ? undefined : { ...options.headers, ...(key === undefined ? {} : { 'idempotency-key': key }) };
    // a signal already aborted sends nothing, not even a token exchange
    options.signal?.throwIfAborted();
    const bound = callBound(options.signal, timeoutMs, () => callTimedOut(`${method.toUpperCase()} ${path}`, timeoutMs, trace.attempts));
    const { signal, deadline } = bound;
    const send = async () => {
      const token = await this.#tokens.get(signal);
      const headers: Record<string, string> =
        extra === undefined
          ? { authorization: `Bearer ${token}`, 'user-agent': USER_AGENT }
          : { 'user-agent': USER_AGENT, ...extra, authorization: `Bearer ${token}` };
      observed?.inject(headers);
      const sent = this.#transport.send({
        method,
        path,
        headers,
        retry: method === 'get' || key !== undefined,
        maxRetries,
        schema: call.schema,
        json: call.json,
        searchParams: call.searchParams,
        signal,
        deadline,
        trace,
      });
      return { token, sent };
    };
    try {
      const first = await send();
      try {
        return await first.sent;
      } catch (error) {
        if (!(error instanceof AuthenticationError)) throw error;
        this.#tokens.invalidate(first.token);
      }
      return await (await send()).sent; // a second 401 rejects with AuthenticationError
    } finally {
      bound.dispose();
    }
  }

  async #waitFor<T>(
    what: string,
    read: (options: RequestOptions) => Promise<T>,
    until: (record: T) => boolean,
    options: WaitOptions,
  ): Promise<T> {
    if (typeof until !== 'function') throw new TypeError(`until must be a function of the ${what}`);
    if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
    const timeoutMs = timerMs('timeoutMs', options.timeoutMs, 60_000);
    const intervalMs = timerMs('intervalMs', options.intervalMs, 2_000);
    const { signal } = checkRequestOptions({ signal: options.signal });
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const combined = signal === undefined ? deadline.signal : AbortSignal.any([signal, deadline.signal]);
    let last: T | undefined;
    try {
      for (;;) {
        last = await read({ signal: combined });
        if (until(last)) return last;
        await sleep(intervalMs, combined);
      }
    } catch (error) {
      if (signal?.aborted || !deadline.signal.aborted) throw error;
      throw new WaitTimeoutError(`The ${what} did not reach the awaited state within ${timeoutMs} ms`, last);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The same validation error with every string in its body masked: a token response that failed
 * validation may hold a working token under any name (`accessToken`, `access_token`, `token`, ...).
 * Numbers, booleans and the shape stay, so the issues still make sense.
 */
function withoutToken(error: ResponseValidationError): ResponseValidationError {
  return new ResponseValidationError(error.message, {
    status: error.status,
    headers: error.headers,
    body: maskStrings(error.body, 0),
    issues: error.issues,
    attempts: error.attempts,
  });
}

function maskStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return '[redacted]';
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[redacted]';
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskStrings(item, depth + 1)]));
}

function required(name: string, envName: string, value: unknown): string {
  const resolved = value ?? env(envName);
  if (resolved === undefined || resolved === '') {
    throw new TypeError(`CheckoutClient: missing ${name}: pass the ${name} option or set ${envName}`);
  }
  if (typeof resolved !== 'string') throw new TypeError(`${name} must be a string, got ${describe(resolved)}`);
  return resolved;
}

function secretOption(value: unknown): PartnerSecret {
  if (typeof value === 'function') return value as () => string | Promise<string>;
  return required('partnerSecret', 'CHECKOUT_PARTNER_SECRET', value);
}
