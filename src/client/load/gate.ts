import type { AdaptiveRate } from './adaptive-rate.js';
import type { Pace } from './pace.js';
import type { Pause } from './pause.js';

/** Rejects a queued request whose deadline comes before the end of a `Retry-After` pause. */
export class PausedPastDeadline {
  constructor(readonly waitMs: number) {}
}

/** Refuses a request at once: `rateLimit.maxQueue` requests already wait. */
export class QueueFull {
  constructor(readonly maxQueue: number) {}
}

/** Rejects a queued request that reached the head with less than a usable share of its attempt left: it is not sent. */
export class QueueTimedOut {
  constructor(readonly waitedMs: number) {}
}

/** The longest delay a timer takes (2^31 − 1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The share of its attempt a request must still have to be sent: a request queued longer than
 * half of its attempt (its `timeoutMs`, or what is left of its call's own) fails as a queue
 * timeout, unsent. Sent, a request thus has at least half of its attempt for the service to
 * answer: against a service that never answers, each request holds its slot at least half an
 * attempt, so at most about `2 × concurrency × elapsed / timeoutMs` requests reach it, whatever the
 * number of callers (the head of a long queue no longer goes out with milliseconds left, aborted at
 * once, freeing its slot for the next nearly expired waiter). A larger share would queue less
 * patiently behind a busy but healthy service; half is also what a retry's attempt always has.
 */
export const USABLE_SHARE = 0.5;

/**
 * One waiting request. A class with `handleEvent` is its own abort listener: a waiter costs this
 * object, its promise and that promise's two functions, nothing else (no closure per waiter).
 */
class Waiter {
  constructor(
    readonly gate: Gate,
    readonly resolve: (ticket: number) => void,
    readonly reject: (reason: unknown) => void,
    /** The signal that ends the wait; `undefined` for none (the call's first request without a signal: its `sendBy` ends it). */
    readonly signal: AbortSignal | undefined,
    /** `performance.now()` past which this request cannot wait (its call's deadline or its attempt's timeout). */
    readonly deadline: number,
    /** `performance.now()` past which it is not sent any more (less than {@link USABLE_SHARE} of its attempt left). */
    readonly sendBy: number,
    readonly since: number,
  ) {}

  /** The signal aborted: leave the queue with its reason. */
  handleEvent(): void {
    this.gate.abandon(this);
    this.reject(this.signal?.reason);
  }
}

/**
 * Where every request of a client waits for its turn: a free slot under the concurrency bound, the
 * end of a `Retry-After` pause, and a token of the pace and of the adaptive rate when they apply.
 * A request that may go at once goes synchronously (nothing allocated); the others wait in one
 * bounded FIFO queue (`maxQueue`; past it a request is refused at once) that costs a small object,
 * a promise and an abort listener each, and one timer for the whole queue (for the head's pace,
 * rate or pause, or the moment the head has waited as long as it may). An aborted waiter leaves at
 * once; one that has waited past its share of its attempt ({@link USABLE_SHARE}) fails unsent.
 */
export class Gate {
  readonly #limit: number;
  readonly #maxQueue: number;
  readonly #pace: Pace | undefined;
  readonly #rate: AdaptiveRate;
  readonly #pause: Pause;
  /** A Set keeps insertion order and deletes in O(1): a waiter that aborts leaves from anywhere. */
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

  /**
   * Takes a turn: a ticket (a number) when the request may start now (it holds a slot), else a
   * promise of the ticket when it may (holding a slot). The promise rejects with the signal's reason
   * when it aborts, with {@link PausedPastDeadline} when a pause ends after `deadline`, with
   * {@link QueueTimedOut} when its turn comes with less than a usable share of its attempt left;
   * {@link QueueFull} and an already known {@link PausedPastDeadline} are thrown at once. The ticket
   * goes back with {@link release}.
   */
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

  /** A turn when the request may start now, as {@link acquire} gives it; else `undefined`, nothing queued. */
  tryAcquire(): number | undefined {
    const now = performance.now();
    return this.#queue.size === 0 && this.#inFlight < this.#limit && this.#delay(now) <= 0 ? this.#take(now) : undefined;
  }

  /** Gives back a turn taken with {@link acquire}: its request ended (`now`) with a response or without. */
  release(ticket: number, now: number): void {
    this.#inFlight -= 1;
    this.#pace?.settle(ticket, now);
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

  /** A waiter's signal aborted. @internal */
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

  /**
   * Lets the head of the queue go while it may, and fails the heads past their `sendBy`; else sets
   * the one timer for when the head may go or expires, whichever comes first.
   */
  #pump(): void {
    while (this.#queue.size > 0) {
      const head = this.#queue.values().next().value as Waiter;
      const now = performance.now();
      if (now > head.sendBy) {
        // too little of its attempt left to be worth sending: a queue timeout, and the next one's turn
        this.#leave(head);
        head.reject(new QueueTimedOut(now - head.since));
        continue;
      }
      // no slot: a release pumps again; meanwhile the timer fails the head when it expires
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
    // a timer may fire up to 1 ms early on the performance clock: ceil, and #pump checks again anyway;
    // capped, since a longer delay (a requestsPerSecond of 1e-7) fires after 1 ms, every 1 ms
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
