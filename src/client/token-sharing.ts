// The token cache's use of a `tokenStore`: the store key, the shared token, the lock across processes.
import { sleep } from '../internal/abort.js';
import { MAX_STORE_OPERATION_MS, StoreCircuit } from './store-circuit.js';
import { tokenStoreKey } from './token-key.js';
import type { StoredToken, TokenStore } from '../stores/token-store.js';

/** What the sharing needs of its token cache. */
export interface SharingHost {
  /** `token`'s access token, held by the cache, when it may be used now. */
  adopt(token: StoredToken): string | undefined;
  mint(secret: string, signal: AbortSignal): Promise<StoredToken>;
}

const DEFAULT_LOCK_MS = 5_000;
const MAX_LOCK_MS = 60_000;
const MAX_LOCK_ROUNDS = 1_000;

export class TokenSharing {
  readonly #store: TokenStore;
  readonly #host: SharingHost;
  readonly #baseUrl: string;
  readonly #partnerId: string;
  readonly #circuit = new StoreCircuit();
  #lastKey: { secret: string; key: Promise<string> } | undefined;

  constructor(store: TokenStore, host: SharingHost, baseUrl: string, partnerId: string) {
    this.#store = store;
    this.#host = host;
    this.#baseUrl = baseUrl;
    this.#partnerId = partnerId;
  }

  /** A token for `secret`: the store's, else one exchange (under the store's lock), written back behind. */
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
    // a store that fails or hangs holds no call
    void this.#storeBehind(key, token, locked);
    return token.accessToken;
  }

  #key(secret: string): Promise<string> {
    if (this.#lastKey?.secret !== secret) this.#lastKey = { secret, key: tokenStoreKey(this.#baseUrl, this.#partnerId, secret) };
    return this.#lastKey.key;
  }

  /** The store's token when usable; a store that fails or hangs reads as empty. */
  async #fromStore(key: string, signal: AbortSignal): Promise<string | undefined> {
    if (!this.#circuit.closed) return undefined;
    const store = this.#store;
    const stored = await this.#storeCall(() => store.get(key), undefined, signal);
    return isStoredToken(stored) ? this.#host.adopt(stored) : undefined;
  }

  /** The lock's release, or the token of the process holding it, or `undefined` to exchange without the lock. */
  async #lockOrWait(
    lock: NonNullable<TokenStore['lock']>,
    key: string,
    signal: AbortSignal,
  ): Promise<string | (() => Promise<void>) | undefined> {
    const store = this.#store;
    const waitMs = storeWaitMs(store);
    const deadline = performance.now() + waitMs;
    for (let round = 0, delay = 20; round < MAX_LOCK_ROUNDS; round++, delay = Math.min(delay * 2, 200)) {
      // a lock granted after we stopped waiting is let go
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

  async #storeBehind(key: string, token: StoredToken, locked: (() => Promise<void>) | undefined): Promise<void> {
    const store = this.#store;
    if (this.#circuit.closed) await this.#storeCall(() => store.set(key, token), undefined, NEVER_ABORTED());
    if (locked !== undefined) release(locked);
  }

  #storeCall<T, F>(op: () => T | Promise<T>, failed: F, signal: AbortSignal, late?: (value: T) => void): Promise<T | F> {
    return storeCall(op, failed, storeOperationMs(this.#store), signal, () => this.#circuit.failed(), late);
  }
}

function isStoredToken(value: unknown): value is StoredToken {
  if (value === null || typeof value !== 'object') return false;
  const { accessToken, expiresAt } = value as Partial<StoredToken>;
  return typeof accessToken === 'string' && accessToken !== '' && typeof expiresAt === 'number';
}

function storeOperationMs(store: TokenStore): number {
  return Math.min(storeWaitMs(store), MAX_STORE_OPERATION_MS);
}

let neverAborted: AbortSignal | undefined;
/** Made at first use: Workers refuse an `AbortController` made at a module's load. */
const NEVER_ABORTED = (): AbortSignal => (neverAborted ??= new AbortController().signal);

function storeWaitMs(store: TokenStore): number {
  const { lockMs } = store;
  return typeof lockMs === 'number' && lockMs > 0 && lockMs <= MAX_LOCK_MS ? lockMs : DEFAULT_LOCK_MS;
}

const STORE_GAVE_UP = Symbol('store gave up');

/**
 * One store operation, bounded by `ms` and `signal`: its result, or `failed`. `onFailure` hears of
 * a throw or a timeout; `late` gets a result that came after we gave up.
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

function release(unlock: () => Promise<void>): void {
  Promise.resolve()
    .then(unlock)
    .catch(() => undefined);
}
