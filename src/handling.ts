import { CheckoutError } from './errors.js';
import { untilAborted } from './internal/abort.js';
import { timerMs } from './internal/arguments.js';

export const DEFAULT_MAX_HANDLING_MS = 60_000;

export function maxHandlingMs(value: unknown, fallback = DEFAULT_MAX_HANDLING_MS): number {
  return timerMs('maxHandlingMs', value, fallback);
}

/** Why the SDK let a callback's work go: past `maxHandlingMs`, `drain()` gave up, or its claim or lease was lost. */
export type AbandonReason = 'max-handling' | 'drain' | 'lease-lost';

const WHY: Readonly<Record<AbandonReason, string>> = {
  'max-handling': 'ran past maxHandlingMs',
  drain: 'was still in hand when drain() gave up',
  'lease-lost': 'lost its claim or lease to another worker',
};

/** A callback's `signal` reason once the SDK lets its work go: another worker takes it over within a lease; nothing after is recorded. */
export class HandlingAbandonedError extends CheckoutError {
  override readonly name = 'HandlingAbandonedError' as const;
  /** Why the SDK let go. */
  readonly reason: AbandonReason;
  /** How long the work had been held, in milliseconds (since the callback began, when it had). */
  readonly ms: number;

  /** `work` names what was held, e.g. `onEvent for event "evt-1"`. */
  constructor(work: string, reason: AbandonReason, ms: number) {
    super(
      `${work} ${WHY[reason]} (after ${Math.round(ms)} ms): it is no longer renewed, and another worker takes it over within one lease`,
    );
    this.reason = reason;
    this.ms = ms;
  }
}

/** Work held for a callback: `giveUp` aborts `signal`, stopping everything done under it, and `run` stops waiting. */
export class CallbackHold {
  readonly #controller = new AbortController();
  readonly #callback: string;
  readonly #subject: string;
  #since = performance.now();
  #callbackBegan = false;
  #callbackRunning = false;

  constructor(callback: string, subject: string) {
    this.#callback = callback;
    this.#subject = subject;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get callbackRunning(): boolean {
    return this.#callbackRunning;
  }

  get callbackBegan(): boolean {
    return this.#callbackBegan;
  }

  giveUp(reason: AbandonReason): void {
    if (this.signal.aborted) return;
    const work = this.#callbackBegan ? `${this.#callback} for ${this.#subject}` : `the work on ${this.#subject}`;
    this.#controller.abort(new HandlingAbandonedError(work, reason, performance.now() - this.#since));
  }

  /** Rejects at once with the signal's reason when the work is given up first (past `maxMs`, or by `giveUp`). */
  async run<T>(callback: () => T | Promise<T>, maxMs: number): Promise<T> {
    this.signal.throwIfAborted();
    this.#since = performance.now();
    this.#callbackBegan = true;
    this.#callbackRunning = true;
    const timer = setTimeout(() => this.giveUp('max-handling'), maxMs);
    try {
      let called: Promise<T>;
      try {
        called = Promise.resolve(callback());
      } catch (error) {
        called = Promise.reject(error);
      }
      return await untilAborted(called, this.signal);
    } finally {
      this.#callbackRunning = false;
      clearTimeout(timer);
    }
  }

  abandoned(error: unknown): error is HandlingAbandonedError {
    return this.signal.aborted && error === this.signal.reason;
  }
}

/** `target` with `signal` as a property that a spread or `JSON.stringify` leaves out: a partner's log line or deep equality stays as before. */
export function withSignal<T extends object>(target: T, signal: AbortSignal): T & { signal: AbortSignal } {
  return Object.defineProperty(target, 'signal', { value: signal, enumerable: false, writable: true, configurable: true }) as T & {
    signal: AbortSignal;
  };
}
