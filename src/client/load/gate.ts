import type { AdaptiveRate } from './adaptive-rate.js';
import type { Pace } from './pace.js';
import type { Pause } from './pause.js';

export class PausedPastDeadline {
  constructor(readonly waitMs: number) {}
}

export class QueueFull {
  constructor(readonly maxQueue: number) {}
}

export class QueueTimedOut {
  constructor(readonly waitedMs: number) {}
}

/** A longer timer fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The share of its attempt a request must still have to be sent; queued longer, it fails unsent. A
 * request sent with milliseconds left would be aborted at once and free its slot for the next
 * nearly expired waiter, so a silent service would see every queued request.
 */
export const USABLE_SHARE = 0.5;

/** One waiting request; its own abort listener (`handleEvent`). */
class Waiter {
  constructor(
    readonly gate: Gate,
    readonly resolve: (ticket: number) => void,
    readonly reject: (reason: unknown) => void,
    readonly signal: AbortSignal | undefined,
    /** `performance.now()` past which this request cannot wait. */
    readonly deadline: number,
    /** `performance.now()` past which it is not sent any more. */
    readonly sendBy: number,
    readonly since: number,
  ) {}

  handleEvent(): void {
    this.gate.abandon(this);
    this.reject(this.signal?.reason);
  }
}

/** Where every request of a client waits for its turn: one bounded FIFO queue, one timer for its head. */
export class Gate {
  readonly #limit: number;
  readonly #maxQueue: number;
  readonly #pace: Pace | undefined;
  readonly #rate: AdaptiveRate;
  readonly #pause: Pause;
  /** Insertion order, and an aborted waiter leaves from anywhere in O(1). */
  readonly #queue = new Set<Waiter>();
  #inFlight = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(limit: number, maxQueue: number, pace: Pace | undefined, rate: AdaptiveRate, pause: Pause) {
    this.#limit = limit;
    this.#maxQueue = maxQueue;
    this.#pace = pace;
    this.#rate = rate;
    this.#pause = pause;
  }

  /** A ticket when the request may start now, else a promise of one; it goes back with {@link release}. */
  acquire(signal: AbortSignal | undefined, deadline: number): Promise<number> | number {
    const now = performance.now();
    const ticket = this.tryAcquire();
    if (ticket !== undefined) return ticket;
    if (this.#pause.until > deadline) throw new PausedPastDeadline(this.#pause.until - now);
    signal?.throwIfAborted();
    if (this.#queue.size >= this.#maxQueue) throw new QueueFull(this.#maxQueue);
    const sendBy = now + (deadline - now) * (1 - USABLE_SHARE);
    return new Promise<number>((resolve, reject) => {
      const waiter = new Waiter(this, resolve, reject, signal, deadline, sendBy, now);
      this.#queue.add(waiter);
      signal?.addEventListener('abort', waiter, { once: true });
      this.#pump();
    });
  }

  /** A ticket when the request may start now, else `undefined` (nothing queued). */
  tryAcquire(): number | undefined {
    const now = performance.now();
    return this.#queue.size === 0 && this.#inFlight < this.#limit && this.#delay(now) <= 0 ? this.#take(now) : undefined;
  }

  release(ticket: number, now: number): void {
    this.#inFlight -= 1;
    this.#pace?.settle(ticket, now);
    if (this.#queue.size > 0) this.#pump();
  }

  /** A pause began or grew: the waiters whose deadline comes first fail now. */
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

  /** @internal */
  abandon(waiter: Waiter): void {
    this.#leave(waiter);
  }

  /** Milliseconds until a request may start, slots aside (0 or less: now). */
  #delay(now: number): number {
    let delay = this.#pause.until - now;
    if (this.#pace !== undefined) delay = Math.max(delay, this.#pace.delay(now));
    if (this.#rate.enabled) delay = Math.max(delay, this.#rate.delay(now));
    return delay;
  }

  #take(now: number): number {
    this.#inFlight += 1;
    if (this.#rate.enabled) this.#rate.take(now);
    return this.#pace === undefined ? 0 : this.#pace.take(now);
  }

  #leave(waiter: Waiter): void {
    this.#queue.delete(waiter);
    waiter.signal?.removeEventListener('abort', waiter);
    if (this.#queue.size === 0) this.#clearTimer();
  }

  /** Lets the heads go while they may, fails those past `sendBy`, else sets the timer for the head. */
  #pump(): void {
    while (this.#queue.size > 0) {
      const head = this.#queue.values().next().value as Waiter;
      const now = performance.now();
      if (now > head.sendBy) {
        this.#leave(head);
        head.reject(new QueueTimedOut(now - head.since));
        continue;
      }
      // a release pumps again
      if (this.#inFlight >= this.#limit) break;
      const delay = this.#delay(now);
      if (delay > 0) {
        this.#wakeAt(Math.min(now + delay, head.sendBy));
        return;
      }
      this.#leave(head);
      head.resolve(this.#take(now));
    }
    const head = this.#queue.values().next().value;
    if (head !== undefined) this.#wakeAt(head.sendBy);
  }

  #wakeAt(at: number): void {
    if (this.#timer !== undefined && this.#timerAt <= at) return;
    this.#clearTimer();
    this.#timerAt = at;
    const delay = at - performance.now();
    // a timer may fire up to 1 ms early on the performance clock; #pump checks again anyway
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.min(Math.max(1, Math.ceil(delay)), MAX_TIMER_MS),
    );
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }
}
