import type { RecordReader } from '../kinds.js';
import type { TelemetryOptions } from '../telemetry/options.js';
import type { RecordOf } from '../kinds.js';
import type { WebhookEvent } from '../webhooks/event.js';

import type { StatusKind, StatusSource, WatchEndReason } from './kinds.js';
import type { StatusStore, TransactionalStatusStore } from '../stores/status-store.js';
import type { Logger, TrackerLogEntry } from '../logger.js';
import type { DrainOptions, DrainReport } from '../drain.js';

export type { StatusKind, StatusSource, WatchEndReason } from './kinds.js';
// The store contract the tracker's files name (its home is src/stores/status-store.ts)
export { NUDGE_PRIORITY_MS } from '../stores/status-store.js';
export type {
  ClaimDueRequest,
  ClaimedStatusRecord,
  StatusLease,
  StatusNext,
  StatusRecordState,
  StatusStore,
  StatusTurn,
  TransactionalStatusStore,
} from '../stores/status-store.js';

/** What every {@link StatusChange} carries, whatever its kind. */
export interface StatusChangeBase {
  /**
   * This change's identity, a UUID: the same every time this change of this record is handed over
   * (again after `onChange` threw, after a crash, by any process sharing the store), another for
   * every other change, a status reached again included. Send it downstream as the
   * `Idempotency-Key` and deduplicate on it (a pg-boss job `id` too). Derived from the store's
   * record: a record the store no longer keeps (a memory store restarted, past retention) starts over.
   */
  id: string;
  /** The record's externalId (the partner's own id). */
  externalId: string;
  /**
   * The status now, as its kind reads it (an order's `settlement.status`, for example); `null` when
   * the record has none yet.
   */
  status: string | null;
  /**
   * The status last handed to `onChange` for this record (the call resolved); absent the first
   * time the record is seen (`null` is a handled "no status yet", never "no previous change").
   */
  previousStatus?: string | null;
  /**
   * `'webhook'` when a provider event asked for the read that showed this change (the event is in
   * `event`), else `'poll'` (the record was read on its schedule).
   */
  source: StatusSource;
  /**
   * The provider event that asked for the read, when `source` is `'webhook'`: the bounded
   * projection the store keeps (`eventId`, `type` and the event's top-level scalar fields, strings
   * cut; at most `MAX_TRACKED_EVENT_BYTES` of JSON), not the whole payload.
   */
  event?: WebhookEvent | undefined;
  /**
   * Aborts when the tracker stops holding this change (past `maxHandlingMs`, once `drain()` gave
   * up, or its lease found lost): another process hands it over within one lease, so stop then.
   * Its reason is a `HandlingAbandonedError`. Not enumerable: a spread or `JSON.stringify` leaves it out.
   *
   * @example
   * onChange: async ({ externalId, status, signal }) => {
   *   await fetch(`https://fulfilment.example/orders/${externalId}`, { method: 'PUT', body: String(status), signal });
   * }
   */
  signal: AbortSignal;
}

/** A status change of a record of kind `K`: `record` is that kind's record. */
export interface KindStatusChange<K extends StatusKind> extends StatusChangeBase {
  /** The record's kind. */
  kind: K;
  /** The record as the read returned it, every field kept. */
  record: RecordOf<K>;
}

/** An order's status changed. */
export type OrderStatusChange = KindStatusChange<'order'>;

/** A withdrawal's status changed. */
export type WithdrawalStatusChange = KindStatusChange<'withdrawal'>;

/**
 * One status change of one record, handed to `onChange` once: the unit of
 * exactly-once is the change, not the delivery that announced it. Narrow on `kind` for `record`.
 */
export type StatusChange = StatusChangesByKind[StatusKind];

/** A record of the tracker's: its kind and its externalId. */
export interface RecordRef {
  /** The record's kind. */
  kind: StatusKind;
  /** The record's externalId. */
  externalId: string;
}

/** Each kind's change, by kind (from the kinds table). */
export type StatusChangesByKind = { [K in StatusKind]: KindStatusChange<K> };

/**
 * What `onChange` gets with a transactional store: the change and the store's transaction in which
 * the record's new status will be written. The partner's writes through `transaction` commit
 * together with it (or roll back when `onChange` throws or the process dies).
 */
export type TransactionalStatusChange<Transaction> = StatusChange & {
  /** The store's own transaction; do not commit, roll back or release it, and use it only until `onChange` resolves. */
  transaction: Transaction;
};

/**
 * Handles one status change. Resolve once it is handled (the store then records the status);
 * throw to have the same change handed over again at a later read.
 *
 * @inline
 */
export type OnStatusChange<Transaction = undefined> = (
  change: [Transaction] extends [undefined] ? StatusChange : TransactionalStatusChange<Transaction>,
) => void | Promise<void>;

// ---------------------------------------------------------------------------------------------
// The tracker's options
// ---------------------------------------------------------------------------------------------

/**
 * When a watched record is read. Fast while a checkout is open, then backing off, with jitter so
 * that many records watched at once never read in step.
 */
export interface StatusScheduleOptions {
  /**
   * Milliseconds between reads during the fast period (and while a nudge keeps the pace fast).
   * @default 2_000
   */
  fastIntervalMs?: number | undefined;
  /**
   * How long after a watch begins its record is read every `fastIntervalMs` while the change it
   * awaits is one no provider event announces, in milliseconds (the spec's "polls briefly while the
   * checkout is open": the first milestone, a BRZ payment, an abandoned checkout).
   * @default 600_000 (10 minutes)
   */
  fastForMs?: number | undefined;
  /**
   * The longest wait between two reads, in milliseconds. After the fast period the interval
   * equals the time since the fast period ended (so it doubles at each read) up to this.
   * @default 300_000 (5 minutes)
   */
  maxIntervalMs?: number | undefined;
  /**
   * Each delay is moved by a random amount of up to this fraction of it, either way (0 to 1).
   * @default 0.2
   */
  jitter?: number | undefined;
  /**
   * After this many milliseconds of watching without a final status the watch ends, reported to
   * the logger (`give-up`) and to `onWatchEnd`.
   * @default 604_800_000 (7 days)
   */
  maxAgeMs?: number | undefined;
  /**
   * How long a nudge (a provider event) keeps the record at the fast pace when the reads do not
   * show a change yet, in milliseconds.
   * @default 600_000 (10 minutes)
   */
  nudgeFastForMs?: number | undefined;
  /**
   * The wait after a failed read or a throwing `onChange`, in milliseconds; it doubles with each
   * failure in a row, up to `maxIntervalMs`.
   * @default 1_000
   */
  retryDelayMs?: number | undefined;
  /**
   * A record never found (every read a 404, no status ever handled) stops being watched once its
   * watch is this old, in milliseconds: reported to the logger (`give-up`, `reason: 'not-found'`)
   * and to `onWatchEnd`. A 404 before that is "not created yet" (a checkout opened before its
   * order) and the record is kept on schedule. A record once found is watched up to `maxAgeMs`.
   * @default `fastForMs` (10 minutes): the open-checkout window, the spec's "while the checkout is
   *   open"; an order not created by then never will be (a webhook resolver returned an id the
   *   partner does not own)
   */
  notFoundForMs?: number | undefined;
  /**
   * Milliseconds between reads while the change a record awaits is one a provider event announces
   * (an order whose trade exists: `otc.trade.settled`/`cancelled`) and events flow: the safety net,
   * so a change whose webhook was lost still reaches `onChange` within about this long (plus
   * jitter); the event itself reads the record at once.
   * @default 40_000
   */
  safetyIntervalMs?: number | undefined;
  /**
   * After this many milliseconds without any provider event reaching the store (a partner that only
   * polls, a webhook endpoint broken), announced changes are read as unannounced ones (fast while
   * the checkout could be open), until an event comes again.
   * @default 600_000 (10 minutes)
   */
  webhookSilenceMs?: number | undefined;
  /**
   * Take provider events as flowing from the tracker's creation: announced changes are read at
   * `safetyIntervalMs` at once (a webhook, not a fast poll, brings them), and `webhookSilenceMs`
   * counts from the creation until the first event. For tests that assert a change came by
   * webhook, and for a fleet whose webhooks are known to be configured.
   * @default false: until an event reaches the store, announced changes are read as unannounced ones
   */
  webhooksFromStart?: boolean | undefined;
}

/**
 * Options of `createStatusTracker`. `Transaction` is inferred from a transactional `store` (the
 * type of `onChange`'s `transaction`); it stays `undefined` with any other store.
 */
export interface StatusTrackerOptions<Transaction = undefined> extends TelemetryOptions {
  /** Reads the records: a `CheckoutClient`, whose `rateLimit` and retry budget bound the tracker's reads. */
  client: RecordReader;
  /**
   * Where records, schedules and handled statuses live. Use a shared store (`RedisStatusStore`,
   * `PostgresStatusStore`) when more than one process tracks, or to survive restarts.
   * @default new MemoryStatusStore()
   */
  store?: StatusStore | TransactionalStatusStore<Transaction> | undefined;
  /** Handles each status change once (see {@link StatusChange}); throw to have it handed over again. */
  onChange: OnStatusChange<Transaction>;
  /**
   * Whether a status is final: the watch ends once such a change is handled.
   * @default `isFinalStatus(change.kind, change.status)`: a final status of the record's kind (an
   *   order `Settled` or one that begins with "cancel", any case)
   */
  isFinal?: ((change: StatusChange) => boolean) | undefined;
  /** When records are read; see {@link StatusScheduleOptions} for each default. */
  schedule?: StatusScheduleOptions | undefined;
  /**
   * How long a claimed record is held by this process, in milliseconds, before another process
   * may read it (on the store's clock). Renewed every third of it while `onChange` runs, so a slow
   * `onChange` keeps it; each store operation of a turn is given up after a third of it, so a store
   * that never answers holds nothing. It is also how long a killed process's records wait before
   * another process (or its restart without a stable `owner`) reads them.
   * @default 15_000: three renewals of 5 s, so two failed renewals in a row (a store blip of up to
   *   ~10 s) still keep the lease, and a crash without a stable `owner` delays its records 15 s at most
   */
  leaseMs?: number | undefined;
  /**
   * At most this many reads (and `onChange` calls) in flight at once in this process. The client's
   * own `rateLimit` still paces the requests.
   * @default 8
   */
  maxConcurrentReads?: number | undefined;
  /**
   * How often, in milliseconds, an idle tracker asks the store for due records (a nudge in this
   * process wakes it at once).
   * @default 250
   */
  claimIntervalMs?: number | undefined;
  /**
   * Each read's time limit in milliseconds (passed to the client's `timeoutMs`). Whatever it is, a
   * change is handed over only after the lease was extended once the read ended, so a read that
   * outlived the lease hands nothing over (the process that took the record does).
   * @default 15_000, or half of `leaseMs` when that is less
   */
  readTimeoutMs?: number | undefined;
  /**
   * The longest `onChange` keeps its record's lease, in milliseconds. Past it the tracker gives the
   * change up: the lease is no longer extended (another process hands the change over within
   * `leaseMs`), `change.signal` aborts, and it is logged (`change-failed`, a `HandlingAbandonedError`)
   * and counted (`checkout.handling.abandoned`). With a transactional store, keep the store's
   * transaction bound (`transactionTimeoutMs`) at least this.
   * @default 60_000: past any call a callback should make with a usual 30 s timeout, and
   *   `PostgresStatusStore`'s default `transactionTimeoutMs`
   */
  maxHandlingMs?: number | undefined;
  /**
   * This process's name in leases and logs. Give a stable one per process slot (a pod name, a
   * systemd instance, `worker-3`), unique among the processes running at once: at `start()` the
   * tracker then calls `store.reclaim(owner)`, taking back at once the records its previous life
   * held (killed, it could not release them), instead of leaving them unread for a lease. Two live
   * processes with the same `owner` would take each other's records.
   * @default a random id (nothing is reclaimed at start: a killed process's records wait out `leaseMs`)
   */
  owner?: string | undefined;
  /**
   * Receives one entry per read, change, give-up, lease lost and store failure. `false`: none.
   * Absent: each failure (`change-failed`, `store-failed`, `lease-lost`, `give-up`, a `read` whose
   * outcome is `failed`) writes one line to stderr with the kind, externalId, what happened and the
   * error's name and message (never a secret or a record's body), the same failure at most once a
   * minute (the next line counts those held back); with `CHECKOUT_LOG=debug` in the environment,
   * every entry does, reads and changes included.
   * @default one stderr line per failure, at most once a minute per failure
   */
  logger?: Logger<TrackerLogEntry> | false | undefined;
  /** Called when a watch ends (at a final status, after `maxAgeMs`, or never found within `notFoundForMs`); a callback that throws is ignored. */
  onWatchEnd?:
    ((end: { kind: StatusKind; externalId: string; reason: WatchEndReason; status: string | null | undefined }) => void) | undefined;
}

/**
 * What `watch` and each kind's own watch (`watchOrder`, ...) take after the externalId: nothing with a plain store;
 * with a transactional store (`Transaction` inferred from it), `{ transaction }`: the partner's own
 * open transaction of the store's driver (for `PostgresStatusStore`, a checked-out `pg` client in
 * `BEGIN`), so the watch commits or rolls back with the partner's own write.
 *
 * @inline
 */
export type WatchArguments<Transaction> = [Transaction] extends [undefined]
  ? []
  : [
      options?: {
        /** The partner's open transaction: the watch is written through it (the partner commits it). */
        transaction?: Transaction | undefined;
      },
    ];

/** Each kind's own watch on a {@link StatusTracker} (`watchOrder`, ...), named by the kinds table. */
export type KindWatches<Transaction = undefined> = {
  [K in StatusKind as `watch${Capitalize<K>}`]: {
    /**
     * Starts watching a record of the kind its name says, as `watch(kind, externalId)`.
     *
     * @example
     * await tracker.watchOrder('order-42'); // when the checkout opens
     */
    watch(externalId: string, ...options: WatchArguments<Transaction>): Promise<void>;
  }['watch'];
};

/**
 * A status tracker, from `createStatusTracker`. `Transaction` is the transactional store's
 * transaction type (`undefined` with any other store).
 */
export interface StatusTracker<Transaction = undefined> extends KindWatches<Transaction> {
  /**
   * Starts watching a record of any kind (durable and idempotent): it is read on schedule until its
   * status is final. With a transactional store, `{ transaction }` writes the watch in the partner's
   * own transaction, so a record inserted in it is never left unwatched by a crash before the watch.
   * An unknown `kind` is a `TypeError`. Each kind also has its own watch, `watchOrder` and the
   * like ({@link KindWatches}).
   *
   * @example
   * await tracker.watch('withdrawal', 'payout-7');
   */
  watch(kind: StatusKind, externalId: string, ...options: WatchArguments<Transaction>): Promise<void>;
  /** Stops watching a record; its handled status is kept. */
  unwatch(kind: StatusKind, externalId: string): Promise<void>;
  /**
   * Asks for the record to be read now (a webhook handler does this per event, with the event),
   * watching it when it is not watched.
   */
  nudge(kind: StatusKind, externalId: string, options?: { event?: WebhookEvent | undefined }): Promise<void>;
  /**
   * The record a provider event is about, found by a value the tracker's reads revealed: for an
   * `otc.trade.*` event, the order whose `settlement.tradeId` is the event's `tradeId` (in every
   * process sharing the store). `undefined` when no read has revealed it yet, or the store keeps no
   * keys (one without `findByKey`). The webhook handler asks it when no resolver of the partner's
   * finds the record.
   */
  recordFor(event: WebhookEvent): Promise<RecordRef | undefined>;
  /** Begins reading what is due, in the background; safe on any number of processes sharing a store. Idempotent. */
  start(): void;
  /**
   * Stops claiming; finishes or releases the records in hand, within `timeoutMs` (default 10_000:
   * after the handler's 10 s, both fit a 30 s grace period), then gives up what is left (its
   * leases are no longer extended, `change.signal` aborts).
   */
  drain(options?: DrainOptions): Promise<DrainReport>;
  /**
   * What the probes need (`started`, `live`, `ready`), what this tracker holds, and the store's
   * backlog (shared by every tracker on the store). Rejects when the store does not answer within
   * a third of `leaseMs`; with `{ store: false }` it asks the store nothing (`overdue` and
   * `oldestOverdueMs` undefined) and never rejects: the probes' way, so no outage slows them.
   *
   * @example
   * const { live } = await tracker.health({ store: false }); // a liveness probe
   * const { overdue, oldestOverdueMs } = await tracker.health(); // a dashboard
   */
  health(options?: TrackerHealthOptions): Promise<TrackerHealth>;
}

/** The argument of `tracker.health(options)`. */
export interface TrackerHealthOptions {
  /**
   * Whether to ask the store for its backlog (`overdue`, `oldestOverdueMs`, the last event).
   * @default true
   */
  store?: boolean | undefined;
}

/** What `tracker.health()` resolves. */
export interface TrackerHealth {
  /** Whether this tracker claims records (`start()` was called and no `drain()` since). */
  running: boolean;
  /** Whether a `drain()` is in progress. */
  draining: boolean;
  /** The startup probe: `start()` was called and the first claim was tried (whatever the store answered). */
  started: boolean;
  /**
   * The liveness probe: the claim loop is not wedged (back from each claim and wait on time),
   * whatever the store or the service answer; `true` when not running.
   */
  live: boolean;
  /** The readiness probe: running, not draining, and the last claim was answered (the store works). */
  ready: boolean;
  /** Records this process holds now (reads and `onChange` calls in flight). */
  inHand: number;
  /**
   * Watched records (in the whole store, whichever process should read them) not read
   * successfully when their normal schedule said: nothing read them, or their reads or `onChange`
   * failed. A healthy fleet shows a few (the reads in flight); `undefined` when the store has no
   * `overdue()` query.
   */
  overdue: number | undefined;
  /** How late the most overdue record is, in milliseconds on the store's clock (0 when none); grows through an outage or while no tracker runs. */
  oldestOverdueMs: number | undefined;
  /** When this tracker last claimed from the store successfully (epoch milliseconds, this process's clock; `undefined` before the first). */
  lastClaimAt: number | undefined;
  /** Whether webhooks reach the tracker, so lost ones show. */
  webhooks: {
    /**
     * When a provider event last reached the store (a nudge with an event, from any process:
     * milliseconds on the store's clock); with a store without `lastEvent()`, the last one nudged
     * through this tracker (this process's epoch milliseconds). `undefined`: none yet.
     */
    lastEventAt: number | undefined;
    /**
     * Status changes a provider event announces that this tracker's poll reads found before their
     * event, since it was created (also the `checkout.tracker.found_first_by_read` counter). A few
     * are normal (a read just after the change); a steady rise means webhooks are lost.
     */
    foundFirstByRead: number;
  };
}
