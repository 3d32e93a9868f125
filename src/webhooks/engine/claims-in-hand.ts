/** Checked before the store, which would hand this handler's own `owner` its live claims back. */
export class ClaimsInHand {
  /** Until when (monotonic) an event's claim holds: when it lapses once given up, else `Infinity`. */
  readonly #events = new Map<string, number>();

  take(eventId: string): boolean {
    const until = this.#events.get(eventId);
    if (until !== undefined && performance.now() < until) return false;
    this.#events.set(eventId, Number.POSITIVE_INFINITY);
    return true;
  }

  drop(eventId: string): void {
    this.#events.delete(eventId);
  }

  keepUntil(eventId: string, until: number): void {
    const now = performance.now();
    for (const [key, lapses] of this.#events) if (lapses <= now) this.#events.delete(key);
    this.#events.set(eventId, until);
  }
}
