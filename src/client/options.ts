// The client's public contract: its options and the per-call options, types only (one TSDoc
// block per option, with @default where there is one). CheckoutClient resolves the defaults.
import type { RateLimitOptions, RetryBudgetOptions } from './load/options.js';
import type { ClientLogEntry, Logger } from '../logger.js';
import type { TokenStore } from '../stores/token-store.js';
import type { TelemetryOptions } from '../telemetry/options.js';
import type { Me, ResponseSchema } from '../schemas.js';
import type { ReadName, RecordOf, StatusKind } from '../kinds.js';

/**
 * The partner secret, or a function that returns it (sync or async), called at each token exchange.
 */
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
   * one that does not settle within `timeoutMs` fails the exchange with a `CheckoutError`. While the
   * service refuses the credentials (401), an exchange (and a call of the function) is tried at most
   * once per back-off window, about 1 s doubling to about 30 s; calls in between reject at once.
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
   * How long a whole call may take, in milliseconds, by default: its attempts, the waits between
   * them and the wait for a token included (ky's `totalTimeout`). A call's own `timeoutMs` replaces
   * it. It bounds what a hung service costs a caller: without it, 3 attempts of 30 s each.
   * At most 2^31 − 1.
   * @default 60_000
   */
  totalTimeoutMs?: number | undefined;
  /**
   * How many times a GET, the token exchange, or a request sent with an `idempotencyKey` (a POST
   * included) is retried after a network error (a body cut midway included), a timeout, 408, 429 or
   * 5xx, with exponential backoff and jitter, honouring `Retry-After`. A `Retry-After` over 60 s, or
   * past the call's own `timeoutMs`, fails at once. A request without an idempotency key other than
   * a GET (a plain POST) is sent once, never retried.
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
   * share one token, keyed by base URL, partner id and an HMAC fingerprint of the secret (a client
   * with another secret never receives it). The store is a cache: when a `get` or `lock` fails or
   * takes longer than 1 s (or its `lockMs`, if shorter), the client exchanges and keeps the token
   * itself, and skips the store for 30 s; the write happens behind the exchange, so a store outage
   * never fails a call nor holds one past the exchange.
   * @default an in-memory store private to this client
   */
  tokenStore?: TokenStore | undefined;
  /**
   * The `fetch` to use, e.g. one with a proxy agent or instrumentation. It must honour
   * `redirect: 'manual'` (Node's and every standard fetch do): a followed redirect is rejected.
   * It should honour the request's `signal`: an attempt whose fetch ignores it keeps its
   * `rateLimit.concurrency` slot until fetch settles, or 1 s after the attempt was aborted.
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
   * console-like object (`console`, pino; see {@link Logger}); `false` for none. Without one,
   * `CHECKOUT_LOG=debug` (any case) in the environment prints one line per entry on stderr.
   * @default none (the client's failures reach the caller as errors)
   */
  logger?: Logger<ClientLogEntry> | false | undefined;
  /**
   * Bounds this client's requests (the token exchange included): at most `concurrency` in flight
   * (default 64; the others queue, each bounded by its call's `timeoutMs` and `signal` and the
   * client's `timeoutMs`), and with `requestsPerSecond` no more than that many started in any
   * second. Whatever is set here, a 429 with `Retry-After` pauses every request of the client
   * (up to 60 s at a time; a call whose deadline comes first fails at once with `RateLimitError`),
   * and a 429 without one lowers the client's request rate, which climbs back as calls succeed.
   * See README "Running many calls".
   * @default { concurrency: 64 } (no pace)
   */
  rateLimit?: RateLimitOptions | undefined;
  /**
   * The retry budget shared by every call of this client (AWS SDKs' retry quota): each retry takes
   * tokens (5, or 10 after a timeout or network error) from a bucket of 500, each success puts 1
   * back. While the service fails most calls, the bucket runs dry and calls fail on their first
   * error instead of retrying (errors still carry `attempts`). `false` turns it off; an object tunes it.
   * @default true ({ capacity: 500, retryCost: 5, timeoutCost: 10 })
   */
  retryBudget?: boolean | RetryBudgetOptions | undefined;
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

/** Each kind's own read on a `CheckoutClient` (`getOrderByExternalId`, ...), named by the kinds table. */
export type KindReads = {
  [K in StatusKind as ReadName<K>]: {
    /**
     * Reads the record of the kind its name says by its externalId, as `getRecord(kind, externalId,
     * options)`: `getOrderByExternalId` reads GET /orders/by-external-id/{externalId}.
     *
     * @example
     * const order = await client.getOrderByExternalId('order-42');
     * order.settlement?.status; // 'Settled' once its crypto swap settled
     */
    read(externalId: string, options?: RequestOptions): Promise<RecordOf<K>>;
  }['read'];
};

/** Each kind's own wait on a `CheckoutClient` (`waitForOrder`, ...), named by the kinds table. */
export type KindWaits = {
  [K in StatusKind as `waitFor${Capitalize<K>}`]: {
    /**
     * Polls the record of the kind its name says until `until(record)` is true, and resolves with
     * that record, as `waitFor(kind, externalId, until, options)`. Rejects with `WaitTimeoutError`
     * (holding the last record read) when time runs out.
     *
     * @example
     * const order = await client.waitForOrder('order-42', (o) => o.settlement?.status === 'Settled', { timeoutMs: 120_000 });
     */
    wait(externalId: string, until: (record: RecordOf<K>) => boolean, options?: WaitOptions): Promise<RecordOf<K>>;
  }['wait'];
};

/** Each kind's own read of {@link ResponseReads} (`getOrderByExternalId`, ...), named by the kinds table. */
export type KindResponseReads = {
  [K in StatusKind as ReadName<K>]: {
    /** The kind's own read (as `getRecord(kind, externalId, options)`), with its response. */
    read(externalId: string, options?: RequestOptions): Promise<WithResponse<RecordOf<K>>>;
  }['read'];
};

/**
 * The client's reads, each resolving with `{ data, response }`; see {@link CheckoutClient.withResponse}.
 */
export interface ResponseReads extends KindResponseReads {
  /** {@link CheckoutClient.getMe}, with its response. */
  getMe(options?: RequestOptions): Promise<WithResponse<Me>>;
  /** {@link CheckoutClient.getRecord}, with its response. */
  getRecord<K extends StatusKind>(kind: K, externalId: string, options?: RequestOptions): Promise<WithResponse<RecordOf<K>>>;
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
  /**
   * The schema the 2xx body must match: a zod schema, or any Standard Schema v1 validator (valibot,
   * arktype, ...); without one the parsed JSON is returned as `unknown`.
   */
  schema?: ResponseSchema<T> | undefined;
  /**
   * Sent as `Idempotency-Key`: the service runs the operation once however many times it receives
   * the key, so a request carrying one is retried like a GET (a POST without one is sent once).
   * Use a fresh key (e.g. `crypto.randomUUID()`) per operation, and the same key to repeat it.
   */
  idempotencyKey?: string | undefined;
}

/** Options of {@link CheckoutClient.waitFor} and of each kind's own wait (`waitForOrder`, ...). */
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
