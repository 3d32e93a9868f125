// the subpath, not jose's root, which loads every JOSE operation at import
import { decodeJwt } from 'jose/jwt/decode';
import { AuthenticationError } from '../errors.js';
import type { TokenResponse } from '../schemas.js';
import { RefusalBackoff } from './refusal-backoff.js';
import type { StoredToken, TokenStore } from '../stores/token-store.js';
import { TokenSharing } from './token-sharing.js';

export interface TokenCacheOptions {
  secret: (signal: AbortSignal) => Promise<string>;
  exchange: (secret: string, signal: AbortSignal) => Promise<TokenResponse>;
  skewSeconds: number;
  store: TokenStore | undefined;
  baseUrl: string;
  partnerId: string;
}

/** The exchange in flight and who waits for it. */
interface Flight {
  promise: Promise<string>;
  controller: AbortController;
  /** Callers with a signal still waiting. */
  waiters: number;
  /** A caller without a signal waits: the exchange runs to its end. */
  pinned: boolean;
}

/** However wrong a clock is, a token is reused this long: no clock problem becomes an exchange per call. */
export const MIN_REUSE_MS = 1_000;

/** The client's access token: reused until its lifetime minus the skew, minted by one exchange at a time. */
export class TokenCache {
  readonly #options: TokenCacheOptions;
  #current: StoredToken | undefined;
  /** `#current`'s token as a settled promise, made once per token. */
  #settled: Promise<string> | undefined;
  #inflight: Flight | undefined;
  /** A token the service refused: ignored if a shared store still hands it out. */
  #rejected: string | undefined;
  readonly #refusal = new RefusalBackoff();
  /** An exchange started before the last `reset()` does not move the back-off. */
  #generation = 0;
  readonly #sharing: TokenSharing | undefined;

  constructor(options: TokenCacheOptions) {
    this.#options = options;
    const { store, baseUrl, partnerId } = options;
    const host = {
      adopt: (token: StoredToken) => this.#adopt(token),
      mint: (secret: string, signal: AbortSignal) => this.#mint(secret, signal),
    };
    this.#sharing = store === undefined ? undefined : new TokenSharing(store, host, baseUrl, partnerId);
  }

  /** The current token when it is usable now. */
  peek(): string | undefined {
    return this.#usable(this.#current);
  }

  /** The current token, or a new one; the exchange is aborted when no caller waits for it any more. */
  get(signal?: AbortSignal): Promise<string> {
    const current = this.#current;
    if (current !== undefined && this.#usable(current) !== undefined) {
      return (this.#settled ??= Promise.resolve(current.accessToken));
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#inflight === undefined) {
      const refused = this.#refusal.blocked();
      if (refused !== undefined) return Promise.reject(refused);
    }
    const flight = (this.#inflight ??= this.#start());
    if (signal === undefined) {
      flight.pinned = true;
      return flight.promise;
    }
    return this.#wait(flight, signal);
  }

  #wait(flight: Flight, signal: AbortSignal): Promise<string> {
    flight.waiters += 1;
    return new Promise<string>((resolve, reject) => {
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        signal.removeEventListener('abort', onAbort);
        flight.waiters -= 1;
      };
      const onAbort = () => {
        leave();
        if (flight.waiters === 0 && !flight.pinned) {
          if (this.#inflight === flight) this.#inflight = undefined;
          flight.controller.abort(signal.reason);
        }
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (token) => {
          leave();
          resolve(token);
        },
        (error: unknown) => {
          leave();
          reject(error);
        },
      );
    });
  }

  /** The credentials changed: the back-off ends, the token goes, an exchange in flight stays with its callers. */
  reset(): void {
    this.#generation += 1;
    this.#refusal.succeeded();
    this.#inflight = undefined;
    this.#hold(undefined);
  }

  invalidate(token: string): void {
    this.#rejected = token;
    if (this.#current?.accessToken === token) this.#hold(undefined);
  }

  get expiresAt(): number | undefined {
    return this.#usable(this.#current) === undefined ? undefined : this.#current?.expiresAt;
  }

  #start(): Flight {
    const controller = new AbortController();
    const flight: Flight = { promise: undefined as never, controller, waiters: 0, pinned: false };
    flight.promise = this.#refresh(controller.signal).finally(() => {
      if (this.#inflight === flight) this.#inflight = undefined;
    });
    // a flight every caller left rejects unheard
    flight.promise.catch(() => undefined);
    return flight;
  }

  async #refresh(signal: AbortSignal): Promise<string> {
    const generation = this.#generation;
    try {
      const token = await this.#refreshOnce(signal);
      if (generation === this.#generation) this.#refusal.succeeded();
      return token;
    } catch (error) {
      if (error instanceof AuthenticationError && !signal.aborted && generation === this.#generation) this.#refusal.refused(error);
      throw error;
    }
  }

  /** The secret first: the store key names its fingerprint, so a wrong secret never reads another's token. */
  async #refreshOnce(signal: AbortSignal): Promise<string> {
    const secret = await this.#options.secret(signal);
    if (this.#sharing === undefined) return (await this.#mint(secret, signal)).accessToken;
    return this.#sharing.refresh(secret, signal);
  }

  #adopt(token: StoredToken): string | undefined {
    const usable = this.#usable(token);
    if (usable !== undefined) this.#hold(token);
    return usable;
  }

  async #mint(secret: string, signal: AbortSignal): Promise<StoredToken> {
    signal.throwIfAborted();
    const response = await this.#options.exchange(secret, signal);
    const token: StoredToken = {
      accessToken: response.accessToken,
      expiresAt: reuseDeadline(response, Date.now(), this.#options.skewSeconds),
    };
    this.#hold(token);
    return token;
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

/** How far apart the local clock and a JWT's `iat` may be for the clocks to agree. */
const CLOCKS_AGREE_MS = 5_000;

/**
 * When to stop reusing a token, on the local clock: `expiresIn` minus the skew, capped by the JWT's
 * `exp − iat`; by `exp` itself only when `iat` shows the clocks agree, or there is no `iat`.
 */
function reuseDeadline(response: TokenResponse, arrivedAt: number, skewSeconds: number): number {
  let lifetimeMs = response.expiresIn * 1000;
  const { exp, iat } = jwtClaims(response.accessToken);
  if (exp !== undefined && iat !== undefined) {
    lifetimeMs = Math.min(lifetimeMs, exp - iat);
    if (Math.abs(arrivedAt - iat) <= CLOCKS_AGREE_MS) lifetimeMs = Math.min(lifetimeMs, exp - arrivedAt);
  } else if (exp !== undefined) {
    lifetimeMs = Math.min(lifetimeMs, exp - arrivedAt);
  }
  lifetimeMs = Math.max(0, lifetimeMs);
  const reuseMs = lifetimeMs - Math.min(skewSeconds * 1000, lifetimeMs / 2);
  return arrivedAt + Math.max(MIN_REUSE_MS, reuseMs);
}

/** The JWT's `exp` in epoch ms, or `undefined` for an opaque token or one without `exp`. */
export function jwtExpiry(token: string): number | undefined {
  return jwtClaims(token).exp;
}

function jwtClaims(token: string): { exp?: number | undefined; iat?: number | undefined } {
  let claims: { exp?: unknown; iat?: unknown };
  try {
    claims = decodeJwt(token);
  } catch {
    return {}; // an opaque token is fine
  }
  const ms = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value * 1000 : undefined);
  return { exp: ms(claims.exp), iat: ms(claims.iat) };
}
