/**
 * The events this handler holds a claim on now, with an `owner`. Checked before the store is
 * asked, so a redelivery while this handler still works on the event is a 409 here, and never
 * taken back through the store by this handler's own `owner`.
 */
export class ClaimsInHand {
  readonly #events = new Set<string>();

  /** Marks `eventId` in hand: `false` when it already is (another delivery of this handler holds it). */
  take(eventId: string): boolean {
    if (this.#events.has(eventId)) return false;
    this.#events.add(eventId);
    return true;
  }

  /** The delivery that took `eventId` is done with its claim (settled, or left to lapse). */
  drop(eventId: string): void {
    this.#events.delete(eventId);
  }
}
