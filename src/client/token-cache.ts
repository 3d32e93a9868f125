// the subpath loads 5 of jose's modules instead of its 46: a shorter cold start, the same function
import { decodeJwt } from 'jose/jwt/decode';
import { AuthenticationError } from '../errors.js';
import type { TokenResponse } from '../schemas.js';
import { RefusalBackoff } from './refusal-backoff.js';
import type { StoredToken, TokenStore } from '../stores/token-store.js';
import { TokenSharing } from './token-sharing.js';

export interface TokenCacheOptions {
  /** The partner secret for one exchange (a `partnerSecret` function is called here, once per exchange). */
  secret: (signal: AbortSignal) => Promise<string>;
  /** Runs POST /auth/token with `secret`; `signal` aborts it once no caller waits for it any more. */
  exchange: (secret: string, signal: AbortSignal) => Promise<TokenResponse>;
  /** Seconds taken off the token's lifetime, never more than half of it. */
  skewSeconds: number;
  store: TokenStore | undefined;
  /** The API base and the partner id, which the store key names (with a fingerprint of the secret, never the secret). */
  baseUrl: string;
  partnerId: string;
}

/** The exchange in flight and who waits for it. */
interface Flight {
  promise: Promise<string>;
  controller: AbortController;
  /** Callers with a signal still waiting. */
  waiters: number;
  /** A caller without a signal waits: the exchange then runs to its own end. */
  pinned: boolean;
}

/**
 * The shortest reuse window, in ms: however wrong a clock (or a token's lifetime) is, a token is
 * reused this long, so no clock problem can turn into an exchange per call.
 */
export const MIN_REUSE_MS = 1_000;

/**
 * The client's access token: reused until its lifetime minus the skew has passed (never past the
 * JWT's lifetime), minted by one exchange at a time however many callers wait, never cached on failure.
 */
export class TokenCache {
  readonly #options: TokenCacheOptions;
  #current: StoredToken | undefined;
  /**
   * `#current`'s token as a settled promise, made once per token: `get()` is on the path of every
   * request, and while the token is valid it hands out this same promise instead of a new one.
   */
  #settled: Promise<string> | undefined;
  #inflight: Flight | undefined;
  /** A token the service rejected (401): ignored if a shared store still hands it out. */
  #rejected: string | undefined;
  readonly #refusal = new RefusalBackoff();
  /** Counts `reset()` calls: an exchange started before the last one does not move the back-off. */
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

  /**
   * The current token, or a new one. A caller whose `signal` aborts stops waiting at once (with the
   * signal's reason); the exchange is aborted when no caller waits for it any more.
   */
  get(signal?: AbortSignal): Promise<string> {
    const current = this.#current;
    if (current !== undefined && this.#usable(current) !== undefined) {
      return (this.#settled ??= Promise.resolve(current.accessToken));
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#inflight === undefined) {
      // the credentials were refused a moment ago: the same error at once, until the next window
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

  /** Waits for `flight` until `signal` aborts; the last waiter to leave aborts the exchange. */
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
          // nobody waits for this exchange any more: stop it, and let the next caller start afresh
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

  /**
   * The credentials changed (a rotated partner secret): ends the refused-secret back-off, forgets
   * the held token and leaves an exchange in flight to the callers already waiting for it, so the
   * next `get()` exchanges at once with the secret as it is now. What that older exchange ends with
   * (a refusal of the old secret) no longer moves the back-off.
   */
  reset(): void {
    this.#generation += 1;
    this.#refusal.succeeded();
    this.#inflight = undefined;
    this.#hold(undefined);
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

  #start(): Flight {
    const controller = new AbortController();
    const flight: Flight = { promise: undefined as never, controller, waiters: 0, pinned: false };
    flight.promise = this.#refresh(controller.signal).finally(() => {
      if (this.#inflight === flight) this.#inflight = undefined;
    });
    // a flight every caller left rejects with nobody listening
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

  /**
   * The secret first (a `partnerSecret` function is called once per refresh, before the store is
   * read): the store key names the fingerprint of the very secret this process would exchange with,
   * so a rotated-out or wrong secret never reads a token minted with another one.
   */
  async #refreshOnce(signal: AbortSignal): Promise<string> {
    const secret = await this.#options.secret(signal);
    if (this.#sharing === undefined) return (await this.#mint(secret, signal)).accessToken;
    return this.#sharing.refresh(secret, signal);
  }

  /** `token` held when it is usable now: its access token, else `undefined`. */
  #adopt(token: StoredToken): string | undefined {
    const usable = this.#usable(token);
    if (usable !== undefined) this.#hold(token);
    return usable;
  }

  /** POST /auth/token, then the token held. */
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

/**
 * How far apart the local clock and a JWT's `iat` may be for the clocks to count as agreeing; `iat`
 * has whole seconds, so a token issued just now may look up to a second old.
 */
const CLOCKS_AGREE_MS = 5_000;

/**
 * When to stop reusing a token, on the local clock: from the response's arrival, `expiresIn` minus
 * the skew (at most half the lifetime), the lifetime capped by the JWT's own (`exp − iat`) when it
 * has both claims. `exp` is compared with the local clock only when `iat` shows the clocks agree
 * (it is then more precise than the whole seconds of `exp − iat`), or when there is no `iat`.
 * Never less than {@link MIN_REUSE_MS}.
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

/** The JWT's `exp` and `iat` in epoch ms, each `undefined` when absent (or for an opaque token). */
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
