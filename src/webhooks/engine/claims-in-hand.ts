/**
 * The events this handler holds a claim on now, with an `owner`. Checked before the store is
 * asked, so a redelivery while this handler still works on the event is a 409 here, and never
 * taken back through the store by this handler's own `owner`.
 */
export class ClaimsInHand {
  /** Each event in hand, and until when (monotonic clock) when its work was given up: its claim lapses then. */
  readonly #events = new Map<string, number>();

  /** Marks `eventId` in hand: `false` when it already is (another delivery of this handler holds it). */
  take(eventId: string): boolean {
    const until = this.#events.get(eventId);
    if (until !== undefined && performance.now() < until) return false;
    this.#events.set(eventId, Number.POSITIVE_INFINITY);
    return true;
  }

  /** The delivery that took `eventId` is done with its claim (settled, or left to lapse). */
  drop(eventId: string): void {
    this.#events.delete(eventId);
  }

  /**
   * The work on `eventId` was given up while its callback may still run: a redelivery is refused here
   * until the claim lapses (`until`, monotonic clock), as it is for any other owner.
   */
  keepUntil(eventId: string, until: number): void {
    const now = performance.now();
    for (const [key, lapses] of this.#events) if (lapses <= now) this.#events.delete(key);
    this.#events.set(eventId, until);
  }
}
