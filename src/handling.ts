import { CheckoutError } from './errors.js';
import { untilAborted } from './internal/abort.js';
import { timerMs } from './internal/arguments.js';

// How long the SDK holds the work of a partner callback (`onEvent`, `onChange`), and how it lets go:
// the claim or lease is no longer renewed, the callback's signal aborts, and the SDK stops waiting.

/**
 * The default `maxHandlingMs`: a minute, past any call a callback should make with a usual 30 s
 * timeout, and the same bound as a transactional store's transaction by default.
 */
export const DEFAULT_MAX_HANDLING_MS = 60_000;

/** The `maxHandlingMs` option, checked: a positive number of milliseconds a timer can hold. */
export function maxHandlingMs(value: unknown, fallback = DEFAULT_MAX_HANDLING_MS): number {
  return timerMs('maxHandlingMs', value, fallback);
}

/**
 * Why the SDK stopped holding a callback's work: it ran past `maxHandlingMs`, `drain()` gave up
 * waiting for it, or its claim or lease was found lost (another worker holds it now).
 */
export type AbandonReason = 'max-handling' | 'drain' | 'lease-lost';

const WHY: Readonly<Record<AbandonReason, string>> = {
  'max-handling': 'ran past maxHandlingMs',
  drain: 'was still in hand when drain() gave up',
  'lease-lost': 'lost its claim or lease to another worker',
};

/**
 * The SDK stopped holding a callback's work (see {@link AbandonReason}): the reason of the callback's
 * `signal` (`context.signal`, `change.signal`). Its claim or lease is no longer renewed, so another
 * worker takes the event or record within one lease; whatever the callback does after this is not
 * recorded, and the work is handed over again.
 */
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

/**
 * One piece of work held for a callback, from its claim: {@link giveUp} aborts {@link signal}
 * (which stops the claim's renewal and everything else done under it) with a
 * {@link HandlingAbandonedError}, and {@link run} stops waiting for the callback then.
 */
export class CallbackHold {
  readonly #controller = new AbortController();
  readonly #callback: string;
  readonly #subject: string;
  #since = performance.now();
  #callbackBegan = false;
  #callbackRunning = false;

  /** `callback` and `subject` name the work in messages, e.g. `onEvent` and `event "evt-1"`. */
  constructor(callback: string, subject: string) {
    this.#callback = callback;
    this.#subject = subject;
  }

  /** Aborts once the SDK stops holding the work, with a {@link HandlingAbandonedError}. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the callback is running now (called, not settled, not given up). */
  get callbackRunning(): boolean {
    return this.#callbackRunning;
  }

  /** Whether the callback was called. */
  get callbackBegan(): boolean {
    return this.#callbackBegan;
  }

  /** Lets go of the work (once; a later call changes nothing). */
  giveUp(reason: AbandonReason): void {
    if (this.signal.aborted) return;
    const work = this.#callbackBegan ? `${this.#callback} for ${this.#subject}` : `the work on ${this.#subject}`;
    this.#controller.abort(new HandlingAbandonedError(work, reason, performance.now() - this.#since));
  }

  /**
   * Calls `callback` and resolves or rejects as it does, unless the work is given up first (past
   * `maxMs`, or by {@link giveUp}): then rejects with the signal's reason, at once.
   */
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

  /** Whether `error` is this hold's own abort reason: the work was given up. */
  abandoned(error: unknown): error is HandlingAbandonedError {
    return this.signal.aborted && error === this.signal.reason;
  }
}

/** `target` with `signal` as a property that a spread or `JSON.stringify` leaves out, as a 1.2 test's deep equality expects. */
export function withSignal<T extends object>(target: T, signal: AbortSignal): T & { signal: AbortSignal } {
  return Object.defineProperty(target, 'signal', { value: signal, enumerable: false, writable: true, configurable: true }) as T & {
    signal: AbortSignal;
  };
}
