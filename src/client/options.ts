// The client's options and the per-call options, types only; CheckoutClient resolves the defaults.
import type { RateLimitOptions, RetryBudgetOptions } from './load/options.js';
import type { ClientLogEntry, Logger } from '../logger.js';
import type { TokenStore } from '../stores/token-store.js';
import type { TelemetryOptions } from '../telemetry/options.js';
import type { Me, ResponseSchema } from '../schemas.js';
import type { ReadName, RecordOf, StatusKind } from '../kinds.js';

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
   * called at each exchange (a rotated secret is picked up without a restart) and bounded by
   * `timeoutMs`. After a 401, the exchange is tried again once per back-off window (about 1 s
   * doubling to about 30 s); calls in between reject at once.
   * @default process.env.CHECKOUT_PARTNER_SECRET
   */
  partnerSecret?: PartnerSecret | undefined;
  /**
   * How long one attempt may take, in milliseconds, headers and body, before it is aborted and
   * retried when safe. At most 2^31 − 1.
   * @default 30_000
   */
  timeoutMs?: number | undefined;
  /**
   * How long a whole call may take, in milliseconds: its attempts, the waits between them and the
   * wait for a token. A call's own `timeoutMs` replaces it. At most 2^31 − 1.
   * @default 60_000
   */
  totalTimeoutMs?: number | undefined;
  /**
   * How many times a GET, the token exchange, or a request with an `idempotencyKey` is retried after
   * a network error, a timeout, 408, 429 or 5xx, with exponential backoff and jitter, honouring
   * `Retry-After` (over 60 s, or past the call's deadline, it fails at once). A plain POST is sent once.
   * @default 2
   */
  maxRetries?: number | undefined;
  /**
   * Seconds before the token's expiry at which a new one is minted, at most half its lifetime
   * (measured from the token's arrival, capped by the JWT's `exp − iat`).
   * @default 30
   */
  tokenSkewSeconds?: number | undefined;
  /**
   * Where the access token is kept: a shared store (e.g. `RedisTokenStore`) lets processes share one
   * token, keyed by base URL, partner id and an HMAC fingerprint of the secret. It is a cache: a
   * `get` or `lock` that fails or takes over 1 s makes the client exchange itself and skip the store
   * for 30 s, so a store outage never fails a call.
   * @default an in-memory store private to this client
   */
  tokenStore?: TokenStore | undefined;
  /**
   * The `fetch` to use, e.g. one with a proxy agent. It must honour `redirect: 'manual'` (a followed
   * redirect is rejected) and should honour the request's `signal`: an attempt whose fetch ignores it
   * keeps its `rateLimit.concurrency` slot until fetch settles, at most 1 s after the abort.
   * @default globalThis.fetch
   */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * The largest response body accepted, in bytes, after decompression: a larger one (of any
   * status) is cut off, and the call rejects with `ResponseTooLargeError`.
   * @default 1_048_576 (1 MiB)
   */
  maxResponseBytes?: number | undefined;
  /**
   * Allow a plain `http:` `baseUrl` whose host is not loopback (which sends the secret and the token
   * in clear text). Loopback hosts are always allowed.
   * @default false
   */
  allowInsecureHttp?: boolean | undefined;
  /**
   * Receives one entry per attempt, retry and token exchange (never a secret, token, header or
   * body): a function or a console-like object (see {@link Logger}); `false` for none. Without one,
   * `CHECKOUT_LOG=debug` prints one line per entry on stderr.
   * @default none
   */
  logger?: Logger<ClientLogEntry> | false | undefined;
  /**
   * Bounds this client's requests, the token exchange included (see {@link RateLimitOptions}).
   * Whatever is set here, a 429 with `Retry-After` pauses every request of the client (up to 60 s;
   * a call whose deadline comes first fails at once with `RateLimitError`), and a 429 without one
   * lowers the client's request rate until calls succeed again.
   * @default { concurrency: 64 } (no pace)
   */
  rateLimit?: RateLimitOptions | undefined;
  /**
   * The retry budget shared by every call of this client (AWS SDKs' retry quota): while the service
   * fails most calls, it runs dry and calls fail on their first error. `false` turns it off; an
   * object tunes it (see {@link RetryBudgetOptions}).
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
  /** Aborts the call, the wait for a token included; it rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /**
   * Bounds the whole call, in milliseconds (the wait for a token, every attempt and retry delay);
   * past it the call rejects with `TimeoutError`.
   * @default the client's `totalTimeoutMs`
   */
  timeoutMs?: number | undefined;
  /**
   * Headers to send with this call's request (not with the token exchange). Those the client or
   * fetch sets (`Authorization`, `Idempotency-Key`, `Host`, `Content-Length`, ...) are refused with a `TypeError`.
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
   * Sent as `Idempotency-Key`: the service runs the operation once per key, so a request carrying
   * one is retried like a GET. A fresh key (e.g. `crypto.randomUUID()`) per operation.
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
