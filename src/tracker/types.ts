import type { RecordReader } from '../kinds.js';
import type { TelemetryOptions } from '../telemetry/options.js';
import type { RecordOf } from '../kinds.js';
import type { WebhookEvent } from '../webhooks/event.js';

import type { StatusKind, StatusSource, WatchEndReason } from './kinds.js';
import type { StatusStore, TransactionalStatusStore } from '../stores/status-store.js';
import type { Logger, TrackerLogEntry } from '../logger.js';
import type { DrainOptions, DrainReport } from '../drain.js';

export type { StatusKind, StatusSource, WatchEndReason } from './kinds.js';
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
   * This change's UUID, the same each time it is handed over (a throw, a crash, any process), new for every
   * other change, a status reached again included: the downstream `Idempotency-Key`. Stable while the store keeps the record.
   */
  id: string;
  /** The record's externalId (the partner's own id). */
  externalId: string;
  /** The status now, as its kind reads it; `null` when the record has none yet. */
  status: string | null;
  /** The status last handed to `onChange` for this record; absent the first time (`null` is a handled "no status yet"). */
  previousStatus?: string | null;
  /** `'webhook'` when a provider event (`event`) asked for the read that showed this change, else `'poll'`. */
  source: StatusSource;
  /** The event behind a `'webhook'` change as stored: `eventId`, `type` and top-level scalars, within `MAX_TRACKED_EVENT_BYTES`. */
  event?: WebhookEvent | undefined;
  /**
   * Aborts with a `HandlingAbandonedError` when the tracker lets this change go (past `maxHandlingMs`, a drain
   * that gave up, a lost lease): another process hands it over within a lease. Not enumerable.
   */
  signal: AbortSignal;
}

/** A status change of a record of kind `K`. */
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

/** One status change of one record, handed to `onChange` once per change (not per delivery). Narrow on `kind` for `record`. */
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
 * What `onChange` gets with a transactional store: the change and the transaction that writes the
 * record's new status, so the partner's writes through it commit or roll back with it.
 */
export type TransactionalStatusChange<Transaction> = StatusChange & {
  /** The store's own transaction; do not commit, roll back or release it, and use it only until `onChange` resolves. */
  transaction: Transaction;
};

/**
 * Handles one status change: resolve once handled (the store then records the status); throw to have it handed over again later.
 * @inline
 */
export type OnStatusChange<Transaction = undefined> = (
  change: [Transaction] extends [undefined] ? StatusChange : TransactionalStatusChange<Transaction>,
) => void | Promise<void>;

/** When a watched record is read: fast while a checkout is open, then backing off, with jitter. */
export interface StatusScheduleOptions {
  /** Milliseconds between reads during the fast period (and while a nudge keeps the pace fast). @default 2_000 */
  fastIntervalMs?: number | undefined;
  /** Milliseconds from a watch's start in which a change no event announces is read every `fastIntervalMs`. @default 600_000 */
  fastForMs?: number | undefined;
  /** The longest wait between reads, in milliseconds; after the fast period each wait doubles up to it. @default 300_000 */
  maxIntervalMs?: number | undefined;
  /** Each delay is moved by a random amount of up to this fraction of it, either way (0 to 1). @default 0.2 */
  jitter?: number | undefined;
  /** Milliseconds of watching without a final status after which the watch ends (`give-up`, `onWatchEnd`). @default 604_800_000 */
  maxAgeMs?: number | undefined;
  /** Milliseconds a nudge keeps the record at the fast pace while the reads do not show a change yet. @default 600_000 */
  nudgeFastForMs?: number | undefined;
  /** Milliseconds after a failed read or a throwing `onChange`, doubling per failure up to `maxIntervalMs`. @default 1_000 */
  retryDelayMs?: number | undefined;
  /** Milliseconds after which a record never found (only 404s) stops being watched, `reason: 'not-found'`. @default `fastForMs` */
  notFoundForMs?: number | undefined;
  /** Milliseconds between reads while an announced change is awaited and events flow: the net for a lost webhook. @default 40_000 */
  safetyIntervalMs?: number | undefined;
  /** Milliseconds without a provider event after which announced changes are read as unannounced ones. @default 600_000 */
  webhookSilenceMs?: number | undefined;
  /**
   * Take provider events as flowing from the tracker's creation: announced changes are read at
   * `safetyIntervalMs` at once, and `webhookSilenceMs` counts from the creation until the first event.
   * @default false
   */
  webhooksFromStart?: boolean | undefined;
}

/** Options of `createStatusTracker`; `Transaction` is inferred from a transactional `store`. */
export interface StatusTrackerOptions<Transaction = undefined> extends TelemetryOptions {
  /** Reads the records: a `CheckoutClient`, whose `rateLimit` and retry budget bound the tracker's reads. */
  client: RecordReader;
  /** Where records and handled statuses live; a shared store for a fleet or across restarts. @default new MemoryStatusStore() */
  store?: StatusStore | TransactionalStatusStore<Transaction> | undefined;
  /** Handles each status change once (see {@link StatusChange}); throw to have it handed over again. */
  onChange: OnStatusChange<Transaction>;
  /** Whether a status is final: the watch ends once such a change is handled. @default `isFinalStatus(change.kind, change.status)` */
  isFinal?: ((change: StatusChange) => boolean) | undefined;
  /** When records are read; see {@link StatusScheduleOptions} for each default. */
  schedule?: StatusScheduleOptions | undefined;
  /**
   * How long a claimed record is held, in milliseconds on the store's clock: renewed every third of it while
   * `onChange` runs, each store call given up after a third. A killed process's records wait this long.
   * @default 15_000
   */
  leaseMs?: number | undefined;
  /** At most this many reads (and `onChange` calls) in flight at once in this process. @default 8 */
  maxConcurrentReads?: number | undefined;
  /** Milliseconds between an idle tracker's claims of due records (a nudge in this process wakes it at once). @default 250 */
  claimIntervalMs?: number | undefined;
  /** Each read's time limit in milliseconds (the client's `timeoutMs`). @default 15_000, or half of `leaseMs` when less */
  readTimeoutMs?: number | undefined;
  /**
   * The longest `onChange` keeps its lease, in milliseconds; past it the change is given up (`change.signal` aborts,
   * logged as `change-failed`). With a transactional store, keep `transactionTimeoutMs` at least this.
   * @default 60_000
   */
  maxHandlingMs?: number | undefined;
  /**
   * This process's name in leases and logs: a stable one per process slot (a pod name), unique among
   * running processes, makes `start()` reclaim at once the records its previous life held. Two live
   * processes with the same `owner` take each other's records.
   * @default a random id (a killed process's records wait out `leaseMs`)
   */
  owner?: string | undefined;
  /**
   * Receives one entry per read, change, give-up, lost lease and store failure; `false` for none.
   * @default one stderr line per failure, the same failure at most once a minute (every entry with `CHECKOUT_LOG=debug`)
   */
  logger?: Logger<TrackerLogEntry> | false | undefined;
  /** Called when a watch ends (final status, `maxAgeMs`, or not found within `notFoundForMs`); a callback that throws is ignored. */
  onWatchEnd?:
    ((end: { kind: StatusKind; externalId: string; reason: WatchEndReason; status: string | null | undefined }) => void) | undefined;
}

/**
 * What a watch takes after the externalId: nothing with a plain store; with a transactional store,
 * `{ transaction }`, the partner's open transaction (for `PostgresStatusStore`, a `pg` client in `BEGIN`).
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

/** Each kind's own watch on a {@link StatusTracker}, named by the kinds table. */
export type KindWatches<Transaction = undefined> = {
  [K in StatusKind as `watch${Capitalize<K>}`]: {
    /** Starts watching a record of the kind its name says, as `watch(kind, externalId)`. */
    watch(externalId: string, ...options: WatchArguments<Transaction>): Promise<void>;
  }['watch'];
};

/** A status tracker, from `createStatusTracker`. `Transaction` is a transactional store's transaction type. */
export interface StatusTracker<Transaction = undefined> extends KindWatches<Transaction> {
  /**
   * Starts watching a record (durable, idempotent) until its status is final; `{ transaction }` writes the
   * watch in the partner's transaction (a transactional store). An unknown `kind` is a `TypeError`.
   */
  watch(kind: StatusKind, externalId: string, ...options: WatchArguments<Transaction>): Promise<void>;
  /** Stops watching a record; its handled status is kept. */
  unwatch(kind: StatusKind, externalId: string): Promise<void>;
  /** Asks for the record to be read now (a webhook handler does, per event), watching it when it is not. */
  nudge(kind: StatusKind, externalId: string, options?: { event?: WebhookEvent | undefined }): Promise<void>;
  /**
   * The record a provider event is about, found by a key a read revealed in any process sharing the
   * store; `undefined` when none did, or the store has no `findByKey`.
   */
  recordFor(event: WebhookEvent): Promise<RecordRef | undefined>;
  /** Begins reading what is due, in the background; safe on any number of processes sharing a store. Idempotent. */
  start(): void;
  /** Stops claiming; finishes or releases the records in hand within `timeoutMs` (10_000), then gives up the rest. */
  drain(options?: DrainOptions): Promise<DrainReport>;
  /**
   * The probes' answers, what this tracker holds, and the store's backlog. Rejects when the store does
   * not answer within a third of `leaseMs`; `{ store: false }` asks the store nothing and never rejects.
   *
   * @example
   * const { live } = await tracker.health({ store: false }); // a liveness probe
   */
  health(options?: TrackerHealthOptions): Promise<TrackerHealth>;
}

/** The argument of `tracker.health(options)`. */
export interface TrackerHealthOptions {
  /** Whether to ask the store for its backlog (`overdue`, `oldestOverdueMs`, the last event). @default true */
  store?: boolean | undefined;
}

/** What `tracker.health()` resolves. */
export interface TrackerHealth {
  /** Whether this tracker claims records (`start()` was called and no `drain()` since). */
  running: boolean;
  /** Whether a `drain()` is in progress. */
  draining: boolean;
  /** The startup probe: `start()` was called and the first claim was tried. */
  started: boolean;
  /** The liveness probe: the claim loop is back from each claim and wait on time, whatever the store answers; `true` when not running. */
  live: boolean;
  /** The readiness probe: running, not draining, and the last claim was answered. */
  ready: boolean;
  /** Records this process holds now (reads and `onChange` calls in flight). */
  inHand: number;
  /** Watched records in the whole store not read when their schedule said; `undefined` when the store has no `overdue()`. */
  overdue: number | undefined;
  /** How late the most overdue record is, in milliseconds on the store's clock (0 when none). */
  oldestOverdueMs: number | undefined;
  /** When this tracker last claimed successfully, in epoch milliseconds on this process's clock. */
  lastClaimAt: number | undefined;
  /** Whether webhooks reach the tracker, so lost ones show. */
  webhooks: {
    /** When a provider event last reached the store (its clock), or this tracker with a store without `lastEvent()`. */
    lastEventAt: number | undefined;
    /** Announced changes this tracker's polls found before their event; a steady rise means webhooks are lost. */
    foundFirstByRead: number;
  };
}
