// the subpath loads 5 of jose's modules instead of its 46: a shorter cold start, the same function
import { decodeJwt } from 'jose/jwt/decode';
import { AuthenticationError } from '../errors.js';
import { sleep } from '../internal/abort.js';
import type { TokenResponse } from '../schemas.js';
import { RefusalBackoff } from './refusal-backoff.js';
import { MAX_STORE_OPERATION_MS, StoreCircuit } from './store-circuit.js';
import type { StoredToken, TokenStore } from './token-store.js';

export interface TokenCacheOptions {
  /** The partner secret for one exchange (a `partnerSecret` function is called here, once per exchange). */
  secret: (signal: AbortSignal) => Promise<string>;
  /** Runs POST /auth/token with `secret`; `signal` aborts it once no caller waits for it any more. */
  exchange: (secret: string, signal: AbortSignal) => Promise<TokenResponse>;
  /** Seconds taken off the token's lifetime, never more than half of it. */
  skewSeconds: number;
  store: TokenStore | undefined;
  /** The store key of the token minted with `secret` (it names a fingerprint of the secret, never the secret). */
  key: (secret: string) => Promise<string>;
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

/** How long a store's exchange lock lives when the store does not say (`TokenStore.lockMs`). */
const DEFAULT_LOCK_MS = 5_000;
/** The longest a store's `lockMs` is honoured; a larger (or invalid) one means the default. */
const MAX_LOCK_MS = 60_000;
/** A bound on the lock-or-wait loop besides its deadline. */
const MAX_LOCK_ROUNDS = 1_000;

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
  readonly #circuit = new StoreCircuit();

  constructor(options: TokenCacheOptions) {
    this.#options = options;
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
    try {
      const token = await this.#refreshOnce(signal);
      this.#refusal.succeeded();
      return token;
    } catch (error) {
      if (error instanceof AuthenticationError && !signal.aborted) this.#refusal.refused(error);
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
    const { store } = this.#options;
    if (store === undefined || !this.#circuit.closed) return (await this.#mint(secret, signal)).accessToken;
    const key = await this.#options.key(secret);
    const shared = await this.#fromStore(store, key, signal);
    if (shared !== undefined) return shared;
    const { lock } = store;
    const locked = typeof lock === 'function' && this.#circuit.closed ? await this.#lockOrWait(store, lock, key, signal) : undefined;
    if (typeof locked === 'string') return locked;
    let token: StoredToken;
    try {
      token = await this.#mint(secret, signal);
    } catch (error) {
      if (locked !== undefined) release(locked);
      throw error;
    }
    // every waiter gets the token now; the write (then the lock's release, so the processes waiting
    // on it find the token) happens behind, and a store that fails or hangs holds no call
    void this.#storeBehind(store, key, token, locked);
    return token.accessToken;
  }

  /** The store's token when it is usable (it is then held); the store is a cache, so one that fails (or hangs) reads as empty. */
  async #fromStore(store: TokenStore, key: string, signal: AbortSignal): Promise<string | undefined> {
    if (!this.#circuit.closed) return undefined;
    const stored = await this.#storeCall(store, () => store.get(key), undefined, signal);
    const shared = isStoredToken(stored) ? this.#usable(stored) : undefined;
    if (shared !== undefined && isStoredToken(stored)) this.#hold(stored);
    return shared;
  }

  /**
   * Takes the store's exchange lock, or waits for the token of the process holding it, at most the
   * store's `lockMs`: another process's token, the lock's release once taken, or `undefined` to
   * exchange without the lock (the wait ran out, or the store failed).
   */
  async #lockOrWait(
    store: TokenStore,
    lock: NonNullable<TokenStore['lock']>,
    key: string,
    signal: AbortSignal,
  ): Promise<string | (() => Promise<void>) | undefined> {
    const waitMs = storeWaitMs(store);
    // the monotonic clock: a wall clock stepped back must not stretch the wait
    const deadline = performance.now() + waitMs;
    for (let round = 0, delay = 20; round < MAX_LOCK_ROUNDS; round++, delay = Math.min(delay * 2, 200)) {
      // a lock that fails or hangs is skipped; one granted after we stopped waiting is let go
      const unlock = await this.#storeCall(store, () => lock.call(store, key), null, signal, (late) => {
        if (typeof late === 'function') release(late);
      });
      if (unlock === null) return undefined;
      if (typeof unlock === 'function') {
        // the holder may have stored its token and let go just before we took the lock
        const shared = await this.#fromStore(store, key, signal);
        if (shared === undefined) return unlock;
        release(unlock);
        return shared;
      }
      if (performance.now() + delay > deadline) return undefined;
      await sleep(delay, signal);
      const shared = await this.#fromStore(store, key, signal);
      if (shared !== undefined) return shared;
      if (!this.#circuit.closed) return undefined;
    }
    return undefined;
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

  /** Stores `token` (skipped while the store is skipped), then lets go of the lock; nobody awaits it. */
  async #storeBehind(store: TokenStore, key: string, token: StoredToken, locked: (() => Promise<void>) | undefined): Promise<void> {
    // a store that fails to keep the token costs other processes an exchange, not this caller its token
    if (this.#circuit.closed) await this.#storeCall(store, () => store.set(key, token), undefined, NEVER_ABORTED());
    if (locked !== undefined) release(locked);
  }

  /** One store operation, bounded (see {@link storeCall}); a failure or a timeout opens the circuit. */
  #storeCall<T, F>(store: TokenStore, op: () => T | Promise<T>, failed: F, signal: AbortSignal, late?: (value: T) => void): Promise<T | F> {
    return storeCall(op, failed, storeOperationMs(store), signal, () => this.#circuit.failed(), late);
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

function isStoredToken(value: unknown): value is StoredToken {
  if (value === null || typeof value !== 'object') return false;
  const { accessToken, expiresAt } = value as Partial<StoredToken>;
  return typeof accessToken === 'string' && accessToken !== '' && typeof expiresAt === 'number';
}

/** How long one store operation may take: the store's `lockMs`, at most {@link MAX_STORE_OPERATION_MS}. */
function storeOperationMs(store: TokenStore): number {
  return Math.min(storeWaitMs(store), MAX_STORE_OPERATION_MS);
}

/** The write behind's signal, which no caller's abort stops. */
let neverAborted: AbortSignal | undefined;
/** Made at first use: Cloudflare Workers refuse an `AbortController` made in the global scope (the module's load). */
const NEVER_ABORTED = (): AbortSignal => (neverAborted ??= new AbortController().signal);

/** How long to wait for another process's token (the store's `lockMs`, when valid). */
function storeWaitMs(store: TokenStore): number {
  const { lockMs } = store;
  return typeof lockMs === 'number' && lockMs > 0 && lockMs <= MAX_LOCK_MS ? lockMs : DEFAULT_LOCK_MS;
}

const STORE_GAVE_UP = Symbol('store gave up');

/**
 * One store operation, bounded: its result, or `failed` when it throws, rejects, takes longer
 * than `ms` or `signal` aborts first (the store is a cache: a custom one that hangs must not hold
 * the exchange forever). `onFailure` hears of a throw or a timeout (not of an abort); `late` gets
 * the result of an operation that settles after we gave up.
 */
async function storeCall<T, F>(
  op: () => T | Promise<T>,
  failed: F,
  ms: number,
  signal: AbortSignal,
  onFailure: () => void,
  late?: (value: T) => void,
): Promise<T | F> {
  const settled = Promise.resolve().then(op);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const gaveUp = new Promise<typeof STORE_GAVE_UP>((resolve) => {
    timer = setTimeout(() => resolve(STORE_GAVE_UP), ms);
    onAbort = () => resolve(STORE_GAVE_UP);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([settled, gaveUp]);
    if (result !== STORE_GAVE_UP) return result as T;
    if (!signal.aborted) onFailure();
    if (late !== undefined) settled.then(late, () => undefined);
    else settled.catch(() => undefined);
    return failed;
  } catch {
    onFailure();
    return failed;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort as () => void);
  }
}

/** Lets go of a store's lock; one that fails simply expires. */
function release(unlock: () => Promise<void>): void {
  Promise.resolve()
    .then(unlock)
    .catch(() => undefined);
}
