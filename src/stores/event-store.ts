/**
 * A claim a store hands out: opaque to the handler, which passes it back to
 * {@link EventStore.complete} and {@link EventStore.release} so that only the worker holding the
 * claim can settle it (a worker whose lease ran out cannot settle a later worker's claim).
 */
export interface ClaimedLease {
  /** The event was claimed: this worker runs it. */
  status: 'claimed';
  /** What the store needs to recognise its own claim (a token, a row version): never inspected by the handler. */
  lease: unknown;
}

/**
 * What {@link EventStore.claim} found: the caller now owns the event (`"claimed"`, or a
 * {@link ClaimedLease} from stores that check the owner), another worker does, or it is done.
 */
export type ClaimResult = 'claimed' | ClaimedLease | 'in-flight' | 'done';

/**
 * Where the webhook handler records which events it has handled, so a redelivered event is not
 * handled twice. A claim is a lease: if the worker holding it dies, the event can be claimed again
 * once `leaseMs` has passed.
 *
 * Implementations: `MemoryEventStore` (one process), `RedisEventStore` from
 * `checkout-partner-sdk/redis` (many processes and machines).
 *
 * A store of your own may answer a claim with plain `"claimed"`; one that returns
 * `{ status: "claimed", lease }` gets that `lease` back in `complete` and `release`, so it can refuse
 * a worker whose lease has already run out.
 */
export interface EventStore {
  /**
   * Claim `eventId` for `leaseMs` milliseconds: `"claimed"` (or `{ status: "claimed", lease }`) when
   * the caller now owns it, `"in-flight"` when another live claim holds it, `"done"` when it was completed.
   */
  claim(eventId: string, leaseMs: number): Promise<ClaimResult>;
  /**
   * Mark the caller's claim on `eventId` as done, so later claims answer `"done"`. `lease` is what
   * `claim` returned in `{ status: "claimed", lease }` (undefined after a plain `"claimed"`).
   */
  complete(eventId: string, lease?: unknown): Promise<void>;
  /**
   * Give up the caller's claim on `eventId`, so a redelivery can claim it at once. `lease` as for
   * {@link EventStore.complete}.
   */
  release(eventId: string, lease?: unknown): Promise<void>;
}

/** What {@link TransactionalEventStore.transact} found and did. */
export type TransactResult = 'handled' | 'in-flight' | 'done';

/**
 * An {@link EventStore} that can also run an event's handling inside its own database transaction,
 * so the partner's writes and the "done" mark commit together (exactly-once effects). The webhook
 * handler uses `transact` instead of `claim` / `complete` / `release` when the store has it.
 *
 * Implementation: `PostgresEventStore` from `checkout-partner-sdk/postgres` with `transactional: true`.
 */
export interface TransactionalEventStore<Transaction> extends EventStore {
  /**
   * Opens a transaction and takes `event.eventId` in it without waiting: resolves `"in-flight"`
   * when another transaction (or a live claim) holds it, `"done"` when it was completed (neither
   * calls `work`). Otherwise calls `work(transaction)`; when `work` resolves, marks the event done
   * and commits, then resolves `"handled"`. When `work` rejects, rolls back and rejects with that
   * same error, or with the store's own error when the transaction was lost under it (its session
   * died: answered 503). Any other failure (connecting, locking, committing) rejects with the store's error.
   * A transaction left idle or in a statement for longer than `leaseMs` is ended by the store.
   * When `work` resolved but misused its transaction (ended it, left a statement running), the
   * store rolls back and rejects with an error whose `misuse` is `true`: the delivery fails (500).
   */
  transact(
    event: { eventId: string; type: string },
    leaseMs: number,
    work: (transaction: Transaction) => Promise<void>,
  ): Promise<TransactResult>;
}
