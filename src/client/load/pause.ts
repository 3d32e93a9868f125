/**
 * The longest a `Retry-After` pauses the whole client. The service's own wait is honoured up to
 * here; past it one request goes out to ask again (and a 429 with `Retry-After` pauses again), so a
 * misconfigured `Retry-After: 86400` costs one request a minute, not a day without any call.
 */
export const MAX_PAUSE_MS = 60_000;

/** A 429's `Retry-After`, applied to every request of the client: none starts before `until`. */
export class Pause {
  /** `performance.now()` before which no request starts; 0 when not paused. */
  until = 0;

  /** Pauses until `now + ms` (capped), unless already paused longer; returns whether the pause grew. */
  extend(ms: number, now: number): boolean {
    const until = now + Math.min(ms, MAX_PAUSE_MS);
    if (until <= this.until) return false;
    this.until = until;
    return true;
  }
}
