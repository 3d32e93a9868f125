import { notify, type LoadHooks } from './hooks.js';

// CUBIC's constants as AWS SDKs' adaptive retry mode uses them: a 429 multiplies the rate by BETA;
// then the rate climbs back along SCALE·(t − K)³ + the rate at the last 429, so it returns to that
// rate K seconds later (slowly near it, faster beyond).
const BETA = 0.7;
const SCALE = 0.4;
/** The lowest rate a 429 can bring the client to, in requests per second. */
const MIN_RATE = 0.5;
/** Weight of the newest half-second when smoothing the measured send rate. */
const SMOOTH = 0.8;
/** Once the curve reaches this many times the rate of the last 429, the limit is lifted. */
const LIFT_FACTOR = 2;

/**
 * The client's own request rate after a 429 that carried no `Retry-After`: a token bucket whose
 * fill rate drops by 30% at each such 429 and climbs back, CUBIC-like, as responses arrive without
 * one. Off (free) until the first 429; lifted again once the curve has climbed to twice the rate
 * at which the service last refused, so a long-gone limit never caps a later burst.
 */
export class AdaptiveRate {
  /** Whether a rate applies at all: false until the first 429 without `Retry-After`. */
  enabled = false;
  readonly #hooks: LoadHooks;
  /** Requests per second that may start. */
  #rate = 0;
  /** Tokens in the bucket (requests that may start now), at most max(1, rate). */
  #tokens = 0;
  #refilledAt = 0;
  /** The rate at the last 429 (CUBIC's W_max), and when it came (ms). */
  #lastMaxRate = 0;
  #lastThrottleAt = 0;
  /** Seconds from a 429 for the curve to be back at `#lastMaxRate` (CUBIC's K). */
  #k = 0;
  /** The measured send rate (responses per second, smoothed over half-second buckets); -1 before the first bucket closed. */
  #measured = -1;
  #bucketStart = -1;
  #bucketCount = 0;

  constructor(hooks: LoadHooks) {
    this.#hooks = hooks;
  }

  /** Milliseconds until a request may start (0 or less: now). Only called while enabled. */
  delay(now: number): number {
    this.#refill(now);
    return this.#tokens >= 1 ? 0 : ((1 - this.#tokens) / this.#rate) * 1000;
  }

  /** A request starts now. */
  take(now: number): void {
    this.#refill(now);
    this.#tokens -= 1;
  }

  /**
   * A response arrived to a request sent at `sentAt`: `throttled` when it is a 429 without
   * `Retry-After`. Called for every response (a few arithmetic operations), so the send rate is
   * known when the first 429 comes.
   */
  observe(throttled: boolean, sentAt: number, now: number): void {
    this.#measure(now);
    if (throttled) {
      // one decrease per round trip (as TCP): the other requests already in flight when the rate
      // was lowered say nothing about the new rate
      if (this.enabled && sentAt <= this.#lastThrottleAt) return;
      const sendRate = this.#sendRate();
      const rate = this.enabled ? Math.min(sendRate, this.#rate) : sendRate;
      this.#lastMaxRate = Math.max(rate, MIN_RATE);
      this.#lastThrottleAt = now;
      this.#k = Math.cbrt((this.#lastMaxRate * (1 - BETA)) / SCALE);
      if (!this.enabled) {
        this.enabled = true;
        this.#tokens = 0;
        this.#refilledAt = now;
      }
      this.#setRate(this.#lastMaxRate * BETA, now);
      return;
    }
    if (!this.enabled) return;
    const t = (now - this.#lastThrottleAt) / 1000 - this.#k;
    const cubic = SCALE * t * t * t + this.#lastMaxRate;
    if (cubic >= LIFT_FACTOR * this.#lastMaxRate) {
      this.enabled = false;
      notify(this.#hooks, 'rateChanged', { requestsPerSecond: undefined });
      return;
    }
    // never more than twice what the client really sends: a quiet client must not bank a burst
    this.#setRate(Math.min(cubic, 2 * this.#sendRate()), now);
  }

  #setRate(rate: number, now: number): void {
    this.#refill(now);
    const next = Math.max(rate, MIN_RATE);
    const changed = Math.abs(next - this.#rate) >= 0.05 * this.#rate;
    this.#rate = next;
    this.#tokens = Math.min(this.#tokens, Math.max(1, next));
    if (changed) notify(this.#hooks, 'rateChanged', { requestsPerSecond: next });
  }

  #refill(now: number): void {
    const elapsed = now - this.#refilledAt;
    if (elapsed <= 0) return;
    this.#tokens = Math.min(Math.max(1, this.#rate), this.#tokens + (elapsed / 1000) * this.#rate);
    this.#refilledAt = now;
  }

  /** Counts a response into the half-second buckets the send rate is measured in. */
  #measure(now: number): void {
    if (this.#bucketStart < 0) this.#bucketStart = now;
    this.#bucketCount += 1;
    const elapsed = now - this.#bucketStart;
    if (elapsed < 500) return;
    const rate = (this.#bucketCount / elapsed) * 1000;
    this.#measured = this.#measured < 0 ? rate : rate * SMOOTH + this.#measured * (1 - SMOOTH);
    this.#bucketStart = now;
    this.#bucketCount = 0;
  }

  /** Requests per second the client sends: the smoothed measure, or the count of the first half-second. */
  #sendRate(): number {
    return this.#measured < 0 ? this.#bucketCount * 2 : this.#measured;
  }
}
