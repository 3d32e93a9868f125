/** How long a token store that failed (or hung) is skipped, in ms. */
export const STORE_SKIP_MS = 30_000;
/** The longest one `get` or `lock` of a token store may take before it counts as failed, in ms. */
export const MAX_STORE_OPERATION_MS = 1_000;

/**
 * Remembers that the token store failed, so the client skips it for {@link STORE_SKIP_MS} instead of
 * waiting on it again at every refresh: while a shared Redis is down or paused, each process
 * exchanges for itself, which costs one exchange per process and token lifetime, never a stalled call.
 */
export class StoreCircuit {
  /** `performance.now()` (a monotonic clock) until which the store is skipped. */
  #skipUntil = 0;

  /** Whether the store may be used now. */
  get closed(): boolean {
    return performance.now() >= this.#skipUntil;
  }

  /** A store operation threw, rejected or timed out. */
  failed(): void {
    this.#skipUntil = performance.now() + STORE_SKIP_MS;
  }
}
