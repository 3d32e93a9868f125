/**
 * How long an unanswered request counts as maybe still on its way: a new connection delays its
 * arrival, and the next second's requests on that connection would land in the same second.
 */
export const MAX_ARRIVAL_MS = 1_000;

/**
 * `rateLimit.requestsPerSecond` as a sliding window at the service: a ring of the last `n` requests,
 * each with the latest time it may have arrived; a request starts once the `n`-th last is a window
 * past that. A token bucket would let a full bucket plus a second's refill into one second.
 */
export class Pace {
  readonly #times: Float64Array;
  readonly #windowMs: number;
  /** The next request's ticket; its slot is `ticket % n`. */
  #taken = 0;

  constructor(requestsPerSecond: number) {
    const n = Math.max(1, Math.floor(requestsPerSecond));
    this.#windowMs = requestsPerSecond >= 1 ? 1000 : 1000 / requestsPerSecond;
    this.#times = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  }

  /** Milliseconds until a request may start (0 or less: now). */
  delay(now: number): number {
    return (this.#times[this.#taken % this.#times.length] as number) + this.#windowMs - now;
  }

  take(now: number): number {
    const ticket = this.#taken;
    this.#times[ticket % this.#times.length] = now + MAX_ARRIVAL_MS;
    this.#taken += 1;
    return ticket;
  }

  /** The request of `ticket` ended at `now`: it reached the service by then, if at all. */
  settle(ticket: number, now: number): void {
    // its slot is another request's once n more were taken
    if (this.#taken - ticket > this.#times.length) return;
    const slot = ticket % this.#times.length;
    this.#times[slot] = Math.min(this.#times[slot] as number, now);
  }
}
