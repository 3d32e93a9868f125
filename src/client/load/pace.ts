/**
 * `rateLimit.requestsPerSecond` as a sliding window: the send times of the last `n` requests are
 * kept in a ring, and a request may start once the `n`-th last one is a full window old. Unlike a
 * token bucket (which lets a full bucket plus a second's refill through in one second), no window
 * ever holds more than `n` starts. With `requestsPerSecond` r ≥ 1, `n` = ⌊r⌋ and the window is 1 s;
 * below 1, one request per `1 / r` seconds.
 */
export class Pace {
  readonly #times: Float64Array;
  readonly #windowMs: number;
  /** Where the oldest send time is, which is also where the next one goes. */
  #next = 0;

  constructor(requestsPerSecond: number) {
    const n = Math.max(1, Math.floor(requestsPerSecond));
    this.#windowMs = requestsPerSecond >= 1 ? 1000 : 1000 / requestsPerSecond;
    this.#times = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  }

  /** Milliseconds until a request may start (0 or less: now). */
  delay(now: number): number {
    return (this.#times[this.#next] as number) + this.#windowMs - now;
  }

  /** A request starts now. */
  take(now: number): void {
    this.#times[this.#next] = now;
    this.#next = (this.#next + 1) % this.#times.length;
  }
}
