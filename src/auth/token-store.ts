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
 * `key` names the partner and service (`baseUrl` and `partnerId`), never a secret, so one store can
 * serve several clients.
 */
export interface TokenStore {
  /** The stored token for `key`, or `undefined`. An expired token may be returned; the client checks. */
  get(key: string): Promise<StoredToken | undefined> | StoredToken | undefined;
  /** Keep `token` for `key`. A store may drop it at `token.expiresAt`. */
  set(key: string, token: StoredToken): Promise<void> | void;
}
