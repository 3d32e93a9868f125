import { booleanOption, checkOptions } from '../internal/arguments.js';
import { CLIENT_OPTIONS, requestSettings, required, secretOption } from './client-options.js';
import { LoadControl } from './load/load-control.js';
import { loadSettings } from './load/options.js';
import { TokenCache } from './token-cache.js';
import { redactShort } from './redact.js';
import { ApiError, AuthenticationError, ResponseValidationError } from '../errors.js';
import { partnerApiBase } from './api-base.js';
import { callBound } from './call-bound.js';
import { callHeaders } from './call-headers.js';
import { callTimedOut, checkRequestOptions, meCall, newTrace, recordCall, type AuthedCall } from './calls.js';
import { clientLogError, logWriter, type LogWriter } from './log.js';
import { checkTransportSecurity } from './insecure-http.js';
import { Transport } from './transport.js';
import { credentialsRefused, withoutToken } from './response-errors.js';
import { rawCall } from './raw-call.js';
import { waitFor } from './wait.js';
import { callSecret } from './secret-call.js';
import type { CallTrace } from './send-options.js';
import type { ObservedCall } from '../telemetry/client-call.js';
import type { TelemetryCore } from '../telemetry/telemetry-core.js';
import { TELEMETRY_OPTIONS, type TelemetryOptions } from '../telemetry/options.js';
import { Telemetry } from '../telemetry/telemetry.js';
import { loadHooks } from '../telemetry/load-hooks.js';
import { TokenResponseSchema, type Me, type TokenResponse } from '../schemas.js';
import { installPerKind, perKind, type RecordOf, type StatusKind } from '../kinds.js';
import type {
  CheckoutClientOptions,
  KindReads,
  KindResponseReads,
  KindWaits,
  PartnerSecret,
  RawRequestOptions,
  RequestOptions,
  ResponseInfo,
  ResponseReads,
  WaitOptions,
  WithResponse,
} from './options.js';

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
// the per-kind reads and waits are put on the prototype from the kinds table (the static block)
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface CheckoutClient extends KindReads, KindWaits {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class CheckoutClient {
  /** The partner API base every path is resolved against, e.g. `https://checkout.example.com/api/v1/partner-api`. */
  readonly baseUrl: string;
  /** The partner's client id (not a secret). */
  readonly partnerId: string;
  readonly #secret: PartnerSecret;
  readonly #timeoutMs: number;
  readonly #totalTimeoutMs: number;
  readonly #transport: Transport;
  readonly #tokens: TokenCache;
  readonly #log: LogWriter;
  readonly #telemetry: Telemetry;
  /** Redacted from business errors too. */
  #lastSecret: string | undefined;

  constructor(options: CheckoutClientOptions = {}) {
    checkOptions('CheckoutClient', options, CLIENT_OPTIONS);
    booleanOption('allowInsecureHttp', options.allowInsecureHttp);
    this.baseUrl = partnerApiBase(required('baseUrl', 'CHECKOUT_BASE_URL', options.baseUrl));
    checkTransportSecurity(this.baseUrl, options.allowInsecureHttp === true);
    this.partnerId = required('partnerId', 'CHECKOUT_PARTNER_ID', options.partnerId);
    // read-only at run time too: request()'s path guard and the token store key read them
    Object.defineProperties(this, {
      baseUrl: { writable: false, configurable: false },
      partnerId: { writable: false, configurable: false },
    });
    this.#secret = secretOption(options.partnerSecret);
    const { timeoutMs, totalTimeoutMs, maxResponseBytes, maxRetries, skewSeconds, store } = requestSettings(options);
    this.#totalTimeoutMs = totalTimeoutMs;
    this.#timeoutMs = timeoutMs;
    this.#log = logWriter(options.logger);
    this.#telemetry = new Telemetry(options, this.baseUrl);
    const load = new LoadControl(loadSettings(options.rateLimit, options.retryBudget), loadHooks(this.#telemetry));
    this.#transport = new Transport({
      apiBase: this.baseUrl,
      timeoutMs,
      maxRetries,
      maxResponseBytes,
      fetch: options.fetch,
      log: this.#log,
      load,
    });
    this.#tokens = new TokenCache({
      secret: (signal) => this.#resolveSecret(signal),
      exchange: (secret, signal) => this.#exchange(secret, signal),
      skewSeconds,
      store,
      baseUrl: this.baseUrl,
      partnerId: this.partnerId,
    });
  }

  /**
   * The cached access token, or a new one from POST /auth/token; concurrent callers share one
   * exchange. `signal` and `timeoutMs` bound the wait (see {@link RequestOptions}).
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

  /**
   * Takes new partner credentials at once: ends the back-off after a refused secret and forgets the
   * cached token, so the next call exchanges with the secret as it is now. It sends nothing itself.
   *
   * @example
   * // the secret manager announced a new partner secret, which `partnerSecret: () => secrets.current` reads
   * secrets.current = rotated;
   * client.resetCredentials();
   */
  resetCredentials(): void {
    this.#tokens.reset();
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
   * The status read of a record of any kind, by its externalId: `order` reads GET
   * /orders/by-external-id/{externalId}. An unknown `kind` is a `TypeError`. Each kind also has its
   * own read, `getOrderByExternalId` and the like ({@link KindReads}).
   *
   * @example
   * const record = await client.getRecord('withdrawal', 'payout-7');
   * record.status; // 'Completed' once settled
   */
  async getRecord<K extends StatusKind>(kind: K, externalId: string, options: RequestOptions = {}): Promise<RecordOf<K>> {
    return this.#authed(recordCall(kind, externalId, options), newTrace());
  }

  /**
   * Any partner API endpoint this SDK does not type yet, with the same auth, timeouts and errors.
   * `path` is relative to the API base, its dynamic segments encoded (a `.` or `..` segment is a
   * `TypeError`). Only GETs and requests with an `idempotencyKey` are retried.
   *
   * @example
   * const result = await client.request('POST', `/orders/${encodeURIComponent(id)}/payment`, {
   *   json: { amount },
   *   idempotencyKey: paymentId, // the same key when the payment is tried again
   * });
   */
  async request<T = unknown>(method: string, path: string, options: RawRequestOptions<T> = {}): Promise<T> {
    return this.#authed(rawCall(this.baseUrl, method, path, options), newTrace());
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
    const getRecord = <K extends StatusKind>(kind: K, externalId: string, options: RequestOptions = {}) =>
      run(() => recordCall(kind, externalId, options));
    return {
      getMe: (options = {}) => run(() => meCall(options)),
      getRecord,
      ...(perKind(
        'get',
        (kind) => (externalId: string, options?: RequestOptions) => getRecord(kind, externalId, options),
        'ByExternalId',
      ) as KindResponseReads),
      request: (method, path, options = {}) => run(() => rawCall(this.baseUrl, method, path, options)),
    };
  }

  /**
   * Reads a record of `kind` every `intervalMs` until `until(record)` is true, and resolves with that
   * record. Rejects with `WaitTimeoutError` (holding the last record read) when time runs out. Each
   * kind also has its own wait, `waitForOrder` and the like ({@link KindWaits}).
   *
   * @example
   * const withdrawal = await client.waitFor('withdrawal', 'payout-7', (w) => isFinalStatus('withdrawal', w.status));
   */
  async waitFor<K extends StatusKind>(
    kind: K,
    externalId: string,
    until: (record: RecordOf<K>) => boolean,
    options: WaitOptions = {},
  ): Promise<RecordOf<K>> {
    return waitFor(kind, (o) => this.getRecord(kind, externalId, o), until, options);
  }

  static {
    const read = (kind: StatusKind) =>
      function (this: CheckoutClient, externalId: string, options?: RequestOptions) {
        return this.getRecord(kind, externalId, options);
      };
    const wait = (kind: StatusKind) =>
      function (this: CheckoutClient, externalId: string, until: (record: RecordOf<StatusKind>) => boolean, options?: WaitOptions) {
        return this.waitFor(kind, externalId, until, options);
      };
    installPerKind(this.prototype, 'get', read, 'ByExternalId');
    installPerKind(this.prototype, 'waitFor', wait);
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

  async #resolveSecret(signal: AbortSignal): Promise<string> {
    if (typeof this.#secret !== 'function') return this.#secret;
    const secret = await callSecret(this.#secret, signal, this.#timeoutMs);
    this.#lastSecret = secret;
    return secret;
  }

  async #exchange(secret: string, signal: AbortSignal): Promise<TokenResponse> {
    const trace = newTrace();
    const started = this.#log === undefined ? 0 : performance.now();
    const use = this.#telemetry.use();
    const observed = use === undefined ? undefined : (await use)?.exchange();
    try {
      const headers: Record<string, string> = { 'x-partner-id': this.partnerId, 'x-partner-secret': secret };
      observed?.inject(headers);
      const send = () =>
        this.#transport.send({ method: 'post', path: '/auth/token', headers, retry: true, schema: TokenResponseSchema, signal, trace });
      const response = await (observed === undefined ? send() : observed.run(send, trace));
      this.#logExchange(started, trace, undefined, secret);
      return response;
    } catch (error) {
      this.#logExchange(started, trace, error, secret);
      // a refused token response may still hold a working token
      if (error instanceof ResponseValidationError) throw withoutToken(error);
      if (error instanceof AuthenticationError) throw credentialsRefused(error);
      throw error;
    }
  }

  #logExchange(started: number, trace: CallTrace, error: unknown, secret: string): void {
    const log = this.#log;
    if (log === undefined) return;
    const ms = performance.now() - started;
    const response = trace.response ?? (error instanceof ApiError ? error : undefined);
    const requestId = response?.headers.get('x-request-id');
    const values = [secret, this.#lastSecret];
    log({
      event: 'client.exchange',
      method: 'POST',
      path: '/auth/token',
      status: response?.status,
      ms,
      attempt: trace.attempts,
      requestId: requestId === null || requestId === undefined ? undefined : redactShort(requestId, values),
      ...(error === undefined ? {} : { error: clientLogError(error, 'the token exchange was aborted by its signal') }),
    });
  }

  /** A business call with the Bearer token; a 401 drops that token, and the call is sent once more with a new one. */
  #authed<T>(call: AuthedCall<T>, trace: CallTrace): Promise<T> {
    const use = this.#telemetry.use();
    if (use === undefined) return this.#send(call, trace, undefined);
    const observe = (core: TelemetryCore | undefined): Promise<T> => {
      const observed = core?.call(call.method, call.path);
      return observed === undefined ? this.#send(call, trace, undefined) : observed.run(() => this.#send(call, trace, observed), trace);
    };
    return use instanceof Promise ? use.then(observe) : observe(use);
  }

  async #send<T>(call: AuthedCall<T>, trace: CallTrace, observed: ObservedCall | undefined): Promise<T> {
    const { options } = call;
    options.signal?.throwIfAborted();
    const deadline = performance.now() + (options.timeoutMs ?? this.#totalTimeoutMs);
    try {
      return await this.#sendOnce(call, trace, observed, deadline);
    } catch (error) {
      const refused = trace.refusedToken;
      if (!(error instanceof AuthenticationError) || refused === undefined) throw error;
      // not a retry: it draws neither from maxRetries nor from the retry budget
      trace.refusedToken = undefined;
      this.#tokens.invalidate(refused);
    }
    return await this.#sendOnce(call, trace, observed, deadline); // a second 401 rejects with AuthenticationError
  }

  #sendOnce<T>(call: AuthedCall<T>, trace: CallTrace, observed: ObservedCall | undefined, deadline: number): Promise<T> {
    const { method, path, options, key } = call;
    const headers = callHeaders(options.headers) ?? {};
    if (key !== undefined) headers['idempotency-key'] = key;
    return this.#transport.send({
      method,
      path,
      headers,
      retry: method === 'get' || key !== undefined,
      maxRetries: options.maxRetries,
      schema: call.schema,
      json: call.json,
      searchParams: call.searchParams,
      externalId: call.externalId,
      signal: options.signal,
      deadline,
      callTimeoutMs: options.timeoutMs,
      totalTimeoutMs: this.#totalTimeoutMs,
      trace,
      authorize: this.#authorize,
      token: this.#token,
      inject: observed === undefined ? undefined : (sent) => observed.inject(sent),
      // a service may quote the partner secret on any endpoint
      alsoRedact: typeof this.#secret === 'string' ? this.#secret : this.#lastSecret,
    });
  }

  readonly #authorize = (signal: AbortSignal | undefined): Promise<string> => this.#tokens.get(signal);
  readonly #token = (): string | undefined => this.#tokens.peek();
}

/**
 * A status reader with both reads of 1.1, as a `CheckoutClient` has them. The webhook handler and
 * the status tracker take any `RecordReader`, which needs only the reads of the kinds used.
 */
export type StatusReader = Pick<CheckoutClient, 'getOrderByExternalId' | 'getWithdrawalByExternalId'>;
