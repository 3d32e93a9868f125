/** A claim with a lease: the handler passes `lease` back to `complete` and `release`, so only the claim's holder can settle it. */
export interface ClaimedLease {
  /** The event was claimed: this worker runs it. */
  status: 'claimed';
  /** Whatever the store needs to recognise its claim (a token, a row version), never `null`; left out by a store without leases. */
  lease?: unknown;
}

/** What {@link EventStore.claim} found: the caller owns the event (with or without a lease), another worker does, or it is done. */
export type ClaimResult = ClaimedLease | 'claimed' | 'in-flight' | 'done';

/** The third argument of {@link EventStore.claim}. */
export interface ClaimOptions {
  /** The worker's stable name: a live claim made under it (before a restart) is claimed again, not `"in-flight"`. Unique per process. */
  owner?: string | undefined;
}

/**
 * Where the webhook handler records the events it handled. A claim is a lease, claimable again after `leaseMs`. A store without
 * leases answers `"claimed"` and gets `complete(eventId)`, `release(eventId)`; any other claim fails the delivery (503).
 */
export interface EventStore {
  /** Claims `eventId` for `leaseMs`: `{ status: "claimed", lease }` (or `"claimed"`), `"in-flight"` under a live claim, or `"done"`. */
  claim(eventId: string, leaseMs: number, options?: ClaimOptions): Promise<ClaimResult>;
  /**
   * Marks `eventId` done. Given a lease, only while that claim holds the event or nobody claimed it since: under another claim it
   * leaves that claim alone and rejects (the handler retries, then logs). Without a lease, whatever claim holds the event.
   */
  complete(eventId: string, lease?: unknown): Promise<void>;
  /** Gives up the claim, so a redelivery can claim at once: only `lease`'s claim when given, else any; a done event stays done. */
  release(eventId: string, lease?: unknown): Promise<void>;
  /** Optional: extends `lease`'s claim to `leaseMs` from now, `false` once lost. Without it the handler uses a 60 s lease, unrenewed. */
  renew?(eventId: string, lease: unknown, leaseMs: number): Promise<boolean>;
  /** Optional: milliseconds left on the live claim (`0`: none; `undefined`: cannot tell), sent as a 409's `Retry-After`. */
  leaseLeftMs?(eventId: string): Promise<number | undefined>;
}

/** What {@link TransactionalEventStore.transact} found and did. */
export type TransactResult = 'handled' | 'in-flight' | 'done';

/** An {@link EventStore} that runs an event's handling in its own transaction: the partner's writes and the done mark commit together. */
export interface TransactionalEventStore<Transaction> extends EventStore {
  /**
   * Used instead of `claim`: takes the event in a transaction without waiting (else `"in-flight"` or `"done"`), runs `work(transaction)`,
   * marks it done, commits: `"handled"`. `work` rejects: rolls back, rejects with it. A misused transaction rejects with `misuse: true`;
   * the store ends one past `leaseMs`, or when `options.signal` aborts.
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
