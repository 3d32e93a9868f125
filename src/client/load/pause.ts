/** The longest a `Retry-After` pauses the whole client: then one request asks again. */
export const MAX_PAUSE_MS = 60_000;

/** A 429's `Retry-After`, applied to every request of the client: none starts before `until`. */
export class Pause {
  until = 0;

  /** Pauses until `now + ms` (capped), unless already paused longer; whether the pause grew. */
  extend(ms: number, now: number): boolean {
    const until = now + Math.min(ms, MAX_PAUSE_MS);
    if (until <= this.until) return false;
    this.until = until;
    return true;
  }
}
