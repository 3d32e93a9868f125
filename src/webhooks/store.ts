/** What {@link EventStore.claim} found: the caller now owns the event, another worker does, or it is done. */
export type ClaimResult = 'claimed' | 'in-flight' | 'done';

/**
 * Where the webhook handler records which events it has handled, so a redelivered event is not
 * handled twice. A claim is a lease: if the worker holding it dies, the event can be claimed again
 * once `leaseMs` has passed.
 *
 * Implementations: `MemoryEventStore` (one process), `RedisEventStore` from
 * `checkout-partner-sdk/redis` (many processes and machines).
 */
export interface EventStore {
  /**
   * Claim `eventId` for `leaseMs` milliseconds: `"claimed"` when the caller now owns it,
   * `"in-flight"` when another live claim holds it, `"done"` when it was completed.
   */
  claim(eventId: string, leaseMs: number): Promise<ClaimResult>;
  /** Mark the caller's claim on `eventId` as done, so later claims answer `"done"`. */
  complete(eventId: string): Promise<void>;
  /** Give up the caller's claim on `eventId`, so a redelivery can claim it at once. */
  release(eventId: string): Promise<void>;
}
