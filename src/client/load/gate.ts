import type { AdaptiveRate } from './adaptive-rate.js';
import type { Pace } from './pace.js';
import type { Pause } from './pause.js';

/** Rejects a queued request whose deadline comes before the end of a `Retry-After` pause. */
export class PausedPastDeadline {
  constructor(readonly waitMs: number) {}
}

/** The longest delay a timer takes (2^31 − 1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
  /** `performance.now()` past which this request cannot wait (its call's deadline or its attempt's timeout). */
  readonly deadline: number;
  readonly since: number;
}

/**
 * Where every request of a client waits for its turn: a free slot under the concurrency bound, the
 * end of a `Retry-After` pause, and a token of the pace and of the adaptive rate when they apply.
 * A request that may go at once goes synchronously (nothing allocated); the others wait in one
 * FIFO queue that costs a promise and an abort listener each, and one timer for the whole queue
 * (for the head's pace, rate or pause), none while only slots are awaited. An aborted waiter
 * leaves at once.
 */
export class Gate {
  readonly #limit: number;
  readonly #pace: Pace | undefined;
  readonly #rate: AdaptiveRate;
  readonly #pause: Pause;
  /** A Set keeps insertion order and deletes in O(1): a waiter that aborts leaves from anywhere. */
  readonly #queue = new Set<Waiter>();
  #inFlight = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(limit: number, pace: Pace | undefined, rate: AdaptiveRate, pause: Pause) {
    this.#limit = limit;
    this.#pace = pace;
    this.#rate = rate;
    this.#pause = pause;
  }

  /** Requests in flight now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Requests waiting now. */
  get queued(): number {
    return this.#queue.size;
  }

  /**
   * Takes a turn: `undefined` when the request may start now (it holds a slot), else a promise that
   * resolves when it may (holding a slot), or rejects with the signal's reason when it aborts, or
   * with {@link PausedPastDeadline} (at once, synchronously, when already known) when a pause ends
   * after `deadline`. Every turn taken is given back with {@link release}.
   */
  acquire(signal: AbortSignal | undefined, deadline: number): Promise<number> | undefined {
    const now = performance.now();
    if (this.#queue.size === 0 && this.#inFlight < this.#limit && this.#delay(now) <= 0) {
      this.#take(now);
      return undefined;
    }
    if (this.#pause.until > deadline) throw new PausedPastDeadline(this.#pause.until - now);
    signal?.throwIfAborted();
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: () => resolve(performance.now() - now),
        reject,
        signal,
        onAbort: () => {
          this.#leave(waiter);
          reject(signal?.reason);
        },
        deadline,
        since: now,
      };
      this.#queue.add(waiter);
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.#pump();
    });
  }

  /** Gives back a turn taken with {@link acquire}. */
  release(): void {
    this.#inFlight -= 1;
    if (this.#queue.size > 0) this.#pump();
  }

  /** A pause began or grew: the waiters whose deadline comes first fail now, the others wait on. */
  paused(): void {
    const until = this.#pause.until;
    const now = performance.now();
    for (const waiter of this.#queue) {
      if (waiter.deadline < until) {
        this.#leave(waiter);
        waiter.reject(new PausedPastDeadline(until - now));
      }
    }
    if (this.#queue.size > 0) this.#pump();
  }

  /** Milliseconds until a request may start, slots aside (0 or less: now). */
  #delay(now: number): number {
    let delay = this.#pause.until - now;
    if (this.#pace !== undefined) delay = Math.max(delay, this.#pace.delay(now));
    if (this.#rate.enabled) delay = Math.max(delay, this.#rate.delay(now));
    return delay;
  }

  #take(now: number): void {
    this.#inFlight += 1;
    this.#pace?.take(now);
    if (this.#rate.enabled) this.#rate.take(now);
  }

  #leave(waiter: Waiter): void {
    this.#queue.delete(waiter);
    waiter.signal?.removeEventListener('abort', waiter.onAbort);
    if (this.#queue.size === 0) this.#clearTimer();
  }

  /** Lets the head of the queue go while it may; else sets the one timer for when it may. */
  #pump(): void {
    while (this.#queue.size > 0 && this.#inFlight < this.#limit) {
      const now = performance.now();
      const delay = this.#delay(now);
      if (delay > 0) {
        this.#wakeAt(now + delay, delay);
        return;
      }
      const head = this.#queue.values().next().value as Waiter;
      this.#leave(head);
      this.#take(now);
      head.resolve();
    }
  }

  #wakeAt(at: number, delay: number): void {
    if (this.#timer !== undefined && this.#timerAt <= at) return;
    this.#clearTimer();
    this.#timerAt = at;
    // a timer may fire up to 1 ms early on the performance clock: ceil, and #pump checks again anyway;
    // capped, since a longer delay (a requestsPerSecond of 1e-7) fires after 1 ms, every 1 ms
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      this.#pump();
    }, Math.min(Math.ceil(delay), MAX_TIMER_MS));
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }
}
