/** A token as a {@link TokenStore} keeps it. */
export interface StoredToken {
  /** The Bearer token. */
  readonly accessToken: string;
  /** Epoch milliseconds after which the token must not be used (the SDK's skew already taken off; never past the JWT's `exp`). */
  readonly expiresAt: number;
}

/**
 * Where `CheckoutClient` keeps its access token, so a fleet mints one per lifetime; `key` holds an HMAC of the secret. A cache: a `get`
 * or `lock` that throws or outlasts `lockMs` (1 s at most) makes the client skip the store for 30 s; nobody awaits `set`.
 */
export interface TokenStore {
  /** The stored token for `key`, or `undefined`. An expired token may be returned; the client checks. */
  get(key: string): Promise<StoredToken | undefined> | StoredToken | undefined;
  /** Keeps `token` for `key`; a store may drop it at `token.expiresAt`. */
  set(key: string, token: StoredToken): Promise<void> | void;
  /** Optional: a lock on `key` across processes around an exchange; resolves its release, or `undefined` when another process holds it. */
  lock?(key: string): Promise<(() => Promise<void>) | undefined>;
  /** How long the lock lives, in milliseconds: others wait that long for its holder's token, then exchange themselves. @default 5_000 */
  readonly lockMs?: number | undefined;
}
