// the subpath loads 5 of jose's modules instead of its 46: a shorter cold start, the same function
import { decodeJwt } from 'jose/jwt/decode';
import type { TokenResponse } from '../schemas.js';
import type { StoredToken, TokenStore } from './token-store.js';

export interface TokenCacheOptions {
  /** Runs POST /auth/token. */
  exchange: () => Promise<TokenResponse>;
  /** Seconds taken off the token's lifetime, never more than half of it. */
  skewSeconds: number;
  store: TokenStore | undefined;
  key: string;
}

/**
 * The client's access token: reused until its lifetime minus the skew has passed (never past the
 * JWT's `exp`), minted by one exchange at a time however many callers wait, never cached on failure.
 */
export class TokenCache {
  readonly #options: TokenCacheOptions;
  #current: StoredToken | undefined;
  /**
   * `#current`'s token as a settled promise, made once per token: `get()` is on the path of every
   * request, and while the token is valid it hands out this same promise instead of a new one.
   */
  #settled: Promise<string> | undefined;
  #inflight: Promise<string> | undefined;
  /** A token the service rejected (401): ignored if a shared store still hands it out. */
  #rejected: string | undefined;

  constructor(options: TokenCacheOptions) {
    this.#options = options;
  }

  /** The current token, or a new one. */
  get(): Promise<string> {
    const current = this.#current;
    if (current !== undefined && this.#usable(current) !== undefined) {
      return (this.#settled ??= Promise.resolve(current.accessToken));
    }
    return (this.#inflight ??= this.#refresh().finally(() => {
      this.#inflight = undefined;
    }));
  }

  /** Forget `token` after the service rejected it, so the next `get()` mints a new one. */
  invalidate(token: string): void {
    this.#rejected = token;
    if (this.#current?.accessToken === token) this.#hold(undefined);
  }

  /** Epoch ms at which the current token stops being reused, or `undefined` when none is held. */
  get expiresAt(): number | undefined {
    return this.#usable(this.#current) === undefined ? undefined : this.#current?.expiresAt;
  }

  async #refresh(): Promise<string> {
    const { store, key } = this.#options;
    if (store !== undefined) {
      // the store is a cache: one that fails (or holds garbage) is read as empty, and the exchange runs
      const stored = await Promise.resolve()
        .then(() => store.get(key))
        .catch(() => undefined);
      const shared = isStoredToken(stored) ? this.#usable(stored) : undefined;
      if (shared !== undefined && isStoredToken(stored)) {
        this.#hold(stored);
        return shared;
      }
    }
    const obtainedAt = Date.now();
    const response = await this.#options.exchange();
    const token: StoredToken = {
      accessToken: response.accessToken,
      expiresAt: reuseDeadline(response, obtainedAt, this.#options.skewSeconds),
    };
    this.#hold(token);
    if (store !== undefined) {
      // a store that fails to keep the token costs other processes an exchange, not this caller its token
      await Promise.resolve()
        .then(() => store.set(key, token))
        .catch(() => undefined);
    }
    return token.accessToken;
  }

  #hold(token: StoredToken | undefined): void {
    this.#current = token;
    this.#settled = undefined;
  }

  #usable(token: StoredToken | undefined): string | undefined {
    if (token === undefined || token.accessToken === this.#rejected) return undefined;
    return Date.now() < token.expiresAt ? token.accessToken : undefined;
  }
}

/** When to stop reusing a token: its lifetime (capped by a JWT `exp`) minus the skew, the skew at most half the lifetime. */
function reuseDeadline(response: TokenResponse, obtainedAt: number, skewSeconds: number): number {
  let expiresAt = obtainedAt + response.expiresIn * 1000;
  const exp = jwtExpiry(response.accessToken);
  if (exp !== undefined && exp < expiresAt) expiresAt = exp;
  const lifetimeMs = Math.max(0, expiresAt - obtainedAt);
  return expiresAt - Math.min(skewSeconds * 1000, lifetimeMs / 2);
}

/** The JWT's `exp` in epoch ms, or `undefined` for an opaque token or one without `exp`. */
export function jwtExpiry(token: string): number | undefined {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined; // an opaque token is fine
  }
}

function isStoredToken(value: unknown): value is StoredToken {
  if (value === null || typeof value !== 'object') return false;
  const { accessToken, expiresAt } = value as Partial<StoredToken>;
  return typeof accessToken === 'string' && accessToken !== '' && typeof expiresAt === 'number';
}
