/** A token as a {@link TokenStore} keeps it. */
export interface StoredToken {
  /** The Bearer token. */
  readonly accessToken: string;
  /**
   * Epoch milliseconds after which the token must not be used. The SDK has already taken its skew
   * off, and never sets it past the JWT's own `exp`.
   */
  readonly expiresAt: number;
}

/**
 * Where `CheckoutClient` keeps its access token. The default keeps it in the client's memory;
 * pass a shared store (such as `RedisTokenStore` from `checkout-partner-sdk/redis`) so a fleet of
 * processes mints one token per lifetime instead of one each. The client still runs at most one
 * exchange at a time per process.
 *
 * `key` is `checkout-partner-sdk:token:<baseUrl>:<partnerId>:<fingerprint>`, the fingerprint an
 * HMAC-SHA256 of the secret (never the secret itself): one store can serve several clients, and a
 * client with another secret never receives a token it did not earn.
 *
 * The store is a cache: a `get` or `lock` that throws or takes longer than 1 s (or `lockMs`, if
 * shorter) counts as failed, and the client then skips the store for 30 s. `set` is called behind
 * the exchange; no caller waits for it.
 */
export interface TokenStore {
  /** The stored token for `key`, or `undefined`. An expired token may be returned; the client checks. */
  get(key: string): Promise<StoredToken | undefined> | StoredToken | undefined;
  /** Keep `token` for `key`. A store may drop it at `token.expiresAt`. */
  set(key: string, token: StoredToken): Promise<void> | void;
  /**
   * Optional: a short lock on `key` across processes, which the client takes around its token
   * exchange so a fleet of cold processes makes one exchange. Resolves with a function that releases
   * the lock, or `undefined` when another process holds it: the client then waits (at most
   * `lockMs`) for that process's token, and exchanges itself when none comes. A lock that fails is
   * skipped (the client exchanges).
   */
  lock?(key: string): Promise<(() => Promise<void>) | undefined>;
  /**
   * How long the lock lives at most, in milliseconds, and so how long other processes wait for the
   * holder's token before exchanging themselves. Each `get`, `set` and `lock` is bounded by it too,
   * and by 1 s at most: one that takes longer counts as failed (the client goes on without the store).
   * @default 5_000
   */
  readonly lockMs?: number | undefined;
}
