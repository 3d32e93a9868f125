/**
 * A claim a store hands out: opaque to the handler, which passes `lease` back to
 * {@link EventStore.complete} and {@link EventStore.release} so that only the worker holding the
 * claim can settle it (a worker whose lease ran out cannot settle a later worker's claim).
 */
export interface ClaimedLease {
  /** The event was claimed: this worker runs it. */
  status: 'claimed';
  /**
   * What the store needs to recognise its own claim (a token, a row version, an object), never
   * `null`: never inspected by the handler, only handed back. Left out (`undefined`) by a store
   * without leases, like a plain `"claimed"`.
   */
  lease?: unknown;
}

/**
 * What {@link EventStore.claim} found: the caller now owns the event (a {@link ClaimedLease}, or a
 * plain `"claimed"` from a store without leases), another worker does (`"in-flight"`), or it is
 * done (`"done"`).
 */
export type ClaimResult = ClaimedLease | 'claimed' | 'in-flight' | 'done';

/** The third argument of {@link EventStore.claim}. */
export interface ClaimOptions {
  /**
   * The claiming worker's stable name (the handler's `owner` option). A live claim made under the
   * same owner is taken back at once (`"claimed"` again, with a new lease), not answered
   * `"in-flight"`: it was made by this worker before a restart. Never give two live processes one owner.
   */
  owner?: string | undefined;
}

/**
 * Where the webhook handler records which events it has handled, so a redelivered event is not
 * handled twice. A claim is a lease: if the worker holding it dies, the event can be claimed again
 * once `leaseMs` has passed.
 *
 * Implementations: `MemoryEventStore` (one process), `RedisEventStore` from
 * `checkout-partner-sdk/redis` (many processes and machines), `PostgresEventStore` from
 * `checkout-partner-sdk/postgres`.
 *
 * A store may hand out a lease (`{ status: "claimed", lease }`, as the built-in stores do): the
 * handler hands it back to `complete` and `release`, so a store can refuse a worker whose lease
 * has already run out. A store without leases answers a plain `"claimed"` (or leaves `lease`
 * out), and the handler then calls `complete(eventId)` and `release(eventId)` with no lease. Any
 * other claim (`lease: null`, an unknown status) fails the delivery with a `TypeError` (answered
 * 503, logged as a store failure).
 */
export interface EventStore {
  /**
   * Claim `eventId` for `leaseMs` milliseconds: `{ status: "claimed", lease }` (or a plain
   * `"claimed"`, without a lease) when the caller now owns it, `"in-flight"` when another live
   * claim holds it, `"done"` when it was completed.
   */
  claim(eventId: string, leaseMs: number, options?: ClaimOptions): Promise<ClaimResult>;
  // `lease` is optional: a store of the lease-less contract (`complete(eventId)`, `release(eventId)`) still fits
  /**
   * Mark `eventId` done, so later claims answer `"done"`. A store that hands out leases gets its
   * `lease` back and acts only for that claim: while it still holds the event, or nobody claimed
   * the event since it ran out; when another claim holds the event now, it leaves it alone and
   * rejects (`MemoryEventStore` with `LeaseLostError`, the Redis and PostgreSQL stores with their
   * store error, operation `'complete'`): the handler retries while its own lease would have held,
   * then logs it. Without a lease (a store without leases, or a caller that has none) the store
   * settles whatever claim holds the event: it is marked done.
   */
  complete(eventId: string, lease?: unknown): Promise<void>;
  /**
   * Give up the claim on `eventId`, so a redelivery can claim it at once; a done event stays done.
   * A store that hands out leases gets its `lease` back and acts only for that claim (nothing when
   * that lease no longer holds it). Without a lease (a store without leases, or a caller that has
   * none) the store frees whatever claim holds the event.
   */
  release(eventId: string, lease?: unknown): Promise<void>;
  /**
   * Optional: extends the claim that returned `lease` to `leaseMs` from now, and resolves `true`;
   * `false` when that claim no longer holds the event. The handler calls it every third of `leaseMs`
   * while the delivery is in hand, so a short lease holds as long as the work does and a killed
   * worker's claims free within one lease. A store without it gets the longer default lease (60 s).
   */
  renew?(eventId: string, lease: unknown, leaseMs: number): Promise<boolean>;
  /**
   * Optional: milliseconds left on the live claim that holds `eventId` (`0` when none does),
   * or `undefined` when the store cannot tell. The handler sends it, in seconds, as `Retry-After`
   * on a 409; without it, `Retry-After` is the whole `leaseMs`.
   */
  leaseLeftMs?(eventId: string): Promise<number | undefined>;
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
   * When `options.signal` aborts while `work` runs (the handler gave `onEvent` up), the store ends
   * the transaction at once (rolled back, its connection closed) and rejects.
   */
  transact(
    event: { eventId: string; type: string },
    leaseMs: number,
    work: (transaction: Transaction) => Promise<void>,
    options?: TransactOptions,
  ): Promise<TransactResult>;
}

/** The last argument of a transactional store's `transact`. */
export interface TransactOptions {
  /** Aborts when the SDK stops holding the work: the store ends the transaction then. */
  signal?: AbortSignal | undefined;
}
