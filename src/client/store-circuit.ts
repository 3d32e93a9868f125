export const STORE_SKIP_MS = 30_000;
export const MAX_STORE_OPERATION_MS = 1_000;

/** Skips a token store that failed for a while, rather than waiting on it at every refresh. */
export class StoreCircuit {
  #skipUntil = 0;

  get closed(): boolean {
    return performance.now() >= this.#skipUntil;
  }

  failed(): void {
    this.#skipUntil = performance.now() + STORE_SKIP_MS;
  }
}
