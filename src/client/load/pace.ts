/**
 * How long after it was handed to `fetch` a request is counted as possibly still on its way to the
 * service, while no answer has come. A request is not on the wire when `fetch` is called: a new
 * connection is set up first, so a burst handed over at once reaches the service spread out, and
 * the next second's requests, sent on those connections at once, would land in the same second. An
 * answer proves the request arrived; without one,
 * a request is assumed to have arrived within this long, which covers connection set-up to a
 * reachable service without letting one slow answer stall the pace for longer.
 */
export const MAX_ARRIVAL_MS = 1_000;

/**
 * `rateLimit.requestsPerSecond` as a sliding window measured at the service: the last `n` requests
 * are kept in a ring, each with the latest time it may have reached the service (its answer's
 * arrival, or while it has none, its send time plus {@link MAX_ARRIVAL_MS}), and a request may
 * start once the `n`-th last one is a full window past that. Unlike a token bucket (which lets a
 * full bucket plus a second's refill through in one second), and unlike a window of send times
 * (which connection set-up skews), no window at the service ever holds more than `n`. With
 * `requestsPerSecond` r ≥ 1, `n` = ⌊r⌋ and the window is 1 s; below 1, one request per `1 / r` seconds.
 */
export class Pace {
  readonly #times: Float64Array;
  readonly #windowMs: number;
  /** Requests taken so far: the next one's ticket; its slot is `ticket % n`. */
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

  /** A request starts now: its ticket, for {@link settle}. */
  take(now: number): number {
    const ticket = this.#taken;
    this.#times[ticket % this.#times.length] = now + MAX_ARRIVAL_MS;
    this.#taken += 1;
    return ticket;
  }

  /** The request of `ticket` ended at `now` (answered, or given up): it reached the service by then, if at all. */
  settle(ticket: number, now: number): void {
    // its slot is another request's once n more were taken
    if (this.#taken - ticket > this.#times.length) return;
    const slot = ticket % this.#times.length;
    this.#times[slot] = Math.min(this.#times[slot] as number, now);
  }
}
