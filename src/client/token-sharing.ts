/**
 * The token store's part of the token cache: the store key (a fingerprint of the secret), reading
 * and writing the shared token, the exchange lock across processes and the store circuit. Imported
 * by {@link TokenCache} at its first refresh, and only when a `tokenStore` is given: a client
 * without one never loads it.
 */
import { sleep } from '../internal/abort.js';
import { MAX_STORE_OPERATION_MS, StoreCircuit } from './store-circuit.js';
import { tokenStoreKey } from './token-key.js';
import type { StoredToken, TokenStore } from '../stores/token-store.js';

/** What the sharing needs of its {@link TokenCache}. */
export interface SharingHost {
  /** `token`'s access token when it may be used now (then held by the cache), else `undefined`. */
  adopt(token: StoredToken): string | undefined;
  /** POST /auth/token with `secret`; the token is then held by the cache. */
  mint(secret: string, signal: AbortSignal): Promise<StoredToken>;
}

/** How long a store's exchange lock lives when the store does not say (`TokenStore.lockMs`). */
const DEFAULT_LOCK_MS = 5_000;
/** The longest a store's `lockMs` is honoured; a larger (or invalid) one means the default. */
const MAX_LOCK_MS = 60_000;
/** A bound on the lock-or-wait loop besides its deadline. */
const MAX_LOCK_ROUNDS = 1_000;

/** One client's use of its token store. */
export class TokenSharing {
  readonly #store: TokenStore;
  readonly #host: SharingHost;
  readonly #baseUrl: string;
  readonly #partnerId: string;
  readonly #circuit = new StoreCircuit();
  /** The last secret's store key, so a fingerprint is computed once per secret value. */
  #lastKey: { secret: string; key: Promise<string> } | undefined;

  constructor(store: TokenStore, host: SharingHost, baseUrl: string, partnerId: string) {
    this.#store = store;
    this.#host = host;
    this.#baseUrl = baseUrl;
    this.#partnerId = partnerId;
  }

  /**
   * A token for `secret`: the store's, else one exchange (under the store's lock when it has one),
   * written back behind. While the store is skipped (it failed or hung), an exchange alone.
   */
  async refresh(secret: string, signal: AbortSignal): Promise<string> {
    const store = this.#store;
    if (!this.#circuit.closed) return (await this.#host.mint(secret, signal)).accessToken;
    const key = await this.#key(secret);
    const shared = await this.#fromStore(key, signal);
    if (shared !== undefined) return shared;
    const lock = store.lock?.bind(store);
    const locked = typeof lock === 'function' && this.#circuit.closed ? await this.#lockOrWait(lock, key, signal) : undefined;
    if (typeof locked === 'string') return locked;
    let token: StoredToken;
    try {
      token = await this.#host.mint(secret, signal);
    } catch (error) {
      if (locked !== undefined) release(locked);
      throw error;
    }
    // every waiter gets the token now; the write (then the lock's release, so the processes waiting
    // on it find the token) happens behind, and a store that fails or hangs holds no call
    void this.#storeBehind(key, token, locked);
    return token.accessToken;
  }

  /** The token store key for `secret` (see README "The token store key"). */
  #key(secret: string): Promise<string> {
    if (this.#lastKey?.secret !== secret) this.#lastKey = { secret, key: tokenStoreKey(this.#baseUrl, this.#partnerId, secret) };
    return this.#lastKey.key;
  }

  /** The store's token when it is usable (it is then held); the store is a cache, so one that fails (or hangs) reads as empty. */
  async #fromStore(key: string, signal: AbortSignal): Promise<string | undefined> {
    if (!this.#circuit.closed) return undefined;
    const store = this.#store;
    const stored = await this.#storeCall(() => store.get(key), undefined, signal);
    return isStoredToken(stored) ? this.#host.adopt(stored) : undefined;
  }

  /**
   * Takes the store's exchange lock, or waits for the token of the process holding it, at most the
   * store's `lockMs`: another process's token, the lock's release once taken, or `undefined` to
   * exchange without the lock (the wait ran out, or the store failed).
   */
  async #lockOrWait(
    lock: NonNullable<TokenStore['lock']>,
    key: string,
    signal: AbortSignal,
  ): Promise<string | (() => Promise<void>) | undefined> {
    const store = this.#store;
    const waitMs = storeWaitMs(store);
    // the monotonic clock: a wall clock stepped back must not stretch the wait
    const deadline = performance.now() + waitMs;
    for (let round = 0, delay = 20; round < MAX_LOCK_ROUNDS; round++, delay = Math.min(delay * 2, 200)) {
      // a lock that fails or hangs is skipped; one granted after we stopped waiting is let go
      const unlock = await this.#storeCall(
        () => lock(key),
        null,
        signal,
        (late) => {
          if (typeof late === 'function') release(late);
        },
      );
      if (unlock === null) return undefined;
      if (typeof unlock === 'function') {
        // the holder may have stored its token and let go just before we took the lock
        const shared = await this.#fromStore(key, signal);
        if (shared === undefined) return unlock;
        release(unlock);
        return shared;
      }
      if (performance.now() + delay > deadline) return undefined;
      await sleep(delay, signal);
      const shared = await this.#fromStore(key, signal);
      if (shared !== undefined) return shared;
      if (!this.#circuit.closed) return undefined;
    }
    return undefined;
  }

  /** Stores `token` (skipped while the store is skipped), then lets go of the lock; nobody awaits it. */
  async #storeBehind(key: string, token: StoredToken, locked: (() => Promise<void>) | undefined): Promise<void> {
    const store = this.#store;
    // a store that fails to keep the token costs other processes an exchange, not this caller its token
    if (this.#circuit.closed) await this.#storeCall(() => store.set(key, token), undefined, NEVER_ABORTED());
    if (locked !== undefined) release(locked);
  }

  /** One store operation, bounded (see {@link storeCall}); a failure or a timeout opens the circuit. */
  #storeCall<T, F>(op: () => T | Promise<T>, failed: F, signal: AbortSignal, late?: (value: T) => void): Promise<T | F> {
    return storeCall(op, failed, storeOperationMs(this.#store), signal, () => this.#circuit.failed(), late);
  }
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
    if (result !== STORE_GAVE_UP) return result;
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
