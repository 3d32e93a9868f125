import { notify, type LoadHooks } from './hooks.js';
import type { LoadSettings } from './options.js';

/** The retries of one client draw from one bucket, as in AWS SDKs' standard retry mode. */
export class RetryBudget {
  readonly #capacity: number;
  readonly #retryCost: number;
  readonly #timeoutCost: number;
  readonly #hooks: LoadHooks;
  #available: number;
  #dry = false;

  constructor(settings: NonNullable<LoadSettings['budget']>, hooks: LoadHooks) {
    this.#capacity = settings.capacity;
    this.#retryCost = settings.retryCost;
    this.#timeoutCost = settings.timeoutCost;
    this.#available = settings.capacity;
    this.#hooks = hooks;
  }

  get available(): number {
    return this.#available;
  }

  /** Takes a retry's cost and says yes, or says no. */
  draw(afterTimeout: boolean): boolean {
    const cost = afterTimeout ? this.#timeoutCost : this.#retryCost;
    if (this.#available >= cost) {
      this.#available -= cost;
      return true;
    }
    if (!this.#dry) {
      this.#dry = true;
      notify(this.#hooks, 'budgetExhausted', { available: this.#available, capacity: this.#capacity });
    }
    notify(this.#hooks, 'retryDenied', { available: this.#available });
    return false;
  }

  /** A request succeeded: 1 token back, or a retry's cost when it succeeded after retries. */
  succeeded(afterRetry: boolean): void {
    if (this.#available === this.#capacity) return;
    this.#available = Math.min(this.#capacity, this.#available + (afterRetry ? this.#retryCost : 1));
    if (this.#dry && this.#available >= this.#retryCost) {
      this.#dry = false;
      notify(this.#hooks, 'budgetRestored', { available: this.#available, capacity: this.#capacity });
    }
  }
}
