import { notify, type LoadHooks } from './hooks.js';

// CUBIC's constants, as AWS SDKs' adaptive retry mode uses them.
const BETA = 0.7;
const SCALE = 0.4;
const MIN_RATE = 0.5;
const SMOOTH = 0.8;
/** Past this many times the rate of the last 429 the limit is lifted: a long-gone limit never caps a later burst. */
const LIFT_FACTOR = 2;

/**
 * The client's request rate after a 429 without `Retry-After`: a token bucket whose rate drops by
 * 30% at each such 429 and climbs back, CUBIC-like, as responses arrive without one.
 */
export class AdaptiveRate {
  enabled = false;
  readonly #hooks: LoadHooks;
  #rate = 0;
  #tokens = 0;
  #refilledAt = 0;
  /** CUBIC's W_max, and when it came. */
  #lastMaxRate = 0;
  #lastThrottleAt = 0;
  /** CUBIC's K. */
  #k = 0;
  /** Responses per second, smoothed over half-second buckets; -1 before the first bucket closed. */
  #measured = -1;
  #bucketStart = -1;
  #bucketCount = 0;

  constructor(hooks: LoadHooks) {
    this.#hooks = hooks;
  }

  /** Milliseconds until a request may start (0 or less: now). */
  delay(now: number): number {
    this.#refill(now);
    return this.#tokens >= 1 ? 0 : ((1 - this.#tokens) / this.#rate) * 1000;
  }

  take(now: number): void {
    this.#refill(now);
    this.#tokens -= 1;
  }

  /** A response to a request sent at `sentAt`; `throttled` for a 429 without `Retry-After`. */
  observe(throttled: boolean, sentAt: number, now: number): void {
    this.#measure(now);
    if (throttled) {
      // one decrease per round trip, as TCP: the requests already in flight say nothing of the new rate
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

  #sendRate(): number {
    return this.#measured < 0 ? this.#bucketCount * 2 : this.#measured;
  }
}
