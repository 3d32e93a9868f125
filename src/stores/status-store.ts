import type { StatusKind } from '../kinds.js';
import type { WebhookEvent } from '../webhook-event.js';
import type { TransactOptions } from './event-store.js';

// The StatusStore contract: what a status tracker asks of the store that keeps its records
// (MemoryStatusStore here, RedisStatusStore, PostgresStatusStore, or a partner's own).

export type { KindRecords, StatusKind } from '../kinds.js';

/**
 * How far before its own `now` a store puts a nudged record's due time (one day): due records are claimed
 * earliest first, so a record a provider event asked about is read before a backlog of records
 * that are merely on schedule, and the webhook path stays fast when polling falls behind.
 */
export const NUDGE_PRIORITY_MS = 86_400_000;

/**
 * A record's lease, as {@link StatusStore.claimDue} hands it out: the tracker passes it back
 * unchanged to `extend`, `commit`, `reschedule` and `release`, and the store acts only while the
 * record still holds this `token` (so a process whose lease ran out cannot settle another's).
 */
export interface StatusLease {
  /** The record's kind. */
  readonly kind: StatusKind;
  /** The record's externalId. */
  readonly externalId: string;
  /** Who holds it (the tracker's `owner`), for logs and inspection. */
  readonly owner: string;
  /** Unique per claim; what the store compares. */
  readonly token: string;
}

/** What a store keeps per record, as `get` and `claimDue` return it. */
export interface StatusRecordState {
  /** The record's kind. */
  kind: StatusKind;
  /** The record's externalId. */
  externalId: string;
  /** Whether the record is being watched (read on schedule); `false` once its watch ended (kept for retention). */
  watching: boolean;
  /** When the current watch began (milliseconds, on the store's clock): the schedule's age is counted from it. */
  watchedAt: number;
  /**
   * The status last handed to `onChange` that resolved, and when it was recorded; absent until the
   * first one. `{ status: null }` is a handled "no status yet".
   */
  handled?:
    | {
        /** The status handled. */
        status: string | null;
        /**
         * When it was recorded (milliseconds, on the store's clock), after the record's previous
         * one even within one tick of the clock: with `status`, what `StatusChange.id` is derived from.
         */
        at: number;
      }
    | undefined;
  /**
   * When the record was last nudged (an event asked to read it) since its last handled change:
   * the tracker reads it at the fast pace for a bounded time after this. Cleared when a change is
   * handled (unless a newer nudge came while the change was being handled).
   */
  nudgedAt?: number | undefined;
  /**
   * The latest nudge's event (the bounded projection the tracker passed, see
   * `MAX_TRACKED_EVENT_BYTES`), handed over as `StatusChange.event`; cleared with `nudgedAt`.
   */
  event?: WebhookEvent | undefined;
  /** Reads or `onChange` calls that failed in a row (the tracker backs off by it); 0 after a success. */
  failures: number;
}

/** A due record, claimed: the record's state as of the claim, and the lease that now holds it. */
export interface ClaimedStatusRecord extends StatusRecordState {
  /** The lease the claim took; pass it back to the store's other operations. */
  lease: StatusLease;
  /**
   * The store's clock at the claim (milliseconds). Every time in the record (`watchedAt`,
   * `handled.at`, `nudgedAt`, `dueAt`) is on that same clock, so the tracker measures ages as
   * differences from it and never compares them with its own wall clock.
   */
  claimedAt: number;
  /**
   * When the record was due, as the due index had it just before this claim (milliseconds, on the
   * store's clock; for a nudged record, `NUDGE_PRIORITY_MS` before the nudge). Optional for a store: the
   * tracker's `checkout.tracker.lag` metric is recorded only for records that carry it.
   */
  dueAt?: number | undefined;
}

/** What {@link StatusStore.claimDue} is asked for. */
export interface ClaimDueRequest {
  /** At most this many records (the tracker's free read slots). */
  limit: number;
  /** How long each lease holds, in milliseconds, unless extended: the record is due again when it runs out. */
  leaseMs: number;
  /** The claiming tracker's owner id, stored with the lease. */
  owner: string;
}

/**
 * How a claimed record's turn ends, for {@link StatusStore.commit} and {@link StatusStore.reschedule}:
 * read it again after `delayMs`, or end its watch (its last handled status is kept for the store's
 * retention, so a replayed event finds it and calls nothing).
 */
export type StatusNext =
  | {
      /** Read the record again after this many milliseconds. */
      delayMs: number;
    }
  | {
      /**
       * `'final'`: the status is final; `'max-age'`: the watch ran out without a final status;
       * `'not-found'`: the record was never found (404) within the tracker's `notFoundForMs`.
       */
      end: 'final' | 'max-age' | 'not-found';
    };

/** What {@link StatusStore.commit} and {@link StatusStore.reschedule} record with the lease released. */
export interface StatusTurn {
  /**
   * What comes next (`delayMs` from the store's own now). When a nudge reached the store after the
   * claim and the turn did not fail (`failures` is 0), the store ignores `next` and makes the record
   * due at once, ahead of the backlog (`now - NUDGE_PRIORITY_MS`): the read in hand may predate the
   * event. After a failed turn (`failures > 0`) `next` holds (the back-off), the nudge and its
   * event kept for the next read.
   */
  next: StatusNext;
  /** The new count of failures in a row (0 after a read whose outcome was handled or needed nothing). */
  failures: number;
  /**
   * For `commit`: keep `nudgedAt` and `event` although a change was handled, because it is not yet
   * the change the nudge's event announced (e.g. `Pending` read after an early `otc.trade.settled`),
   * so the record stays at the fast pace and the announced change is still attributed to the event.
   */
  keepNudge?: boolean | undefined;
  /**
   * The read failed because of the service (no answer, a timeout, a 5xx, a 429), not because of the
   * record: `failures` did not grow and `next` is the record's own schedule, but the read it owed
   * was not made. The store keeps the time that read was owed (see {@link StatusStore.overdue}), so
   * the record counts as overdue until a turn succeeds. Absent: a turn with `failures` 0 met its
   * schedule.
   */
  missed?: boolean | undefined;
}

/** What {@link StatusStore.overdue} reports: the watched records past their normal schedule. */
export interface OverdueRecords {
  /** How many watched records were not read successfully when their normal schedule said. */
  count: number;
  /** How late the most overdue one is, in milliseconds on the store's clock (0 when none is). */
  oldestMs: number;
}

/** What {@link StatusStore.lastEvent} reports: when a provider event last reached the store. */
export interface LastEvent {
  /** When the last nudge with an event was stored (milliseconds on the store's clock). */
  at: number;
  /** How long ago that was, on the store's clock (so no other clock is compared with it). */
  ageMs: number;
}

/**
 * Where a status tracker keeps its records, so a fleet of processes shares one schedule and each
 * status change is handed over once. A watched record costs one row (or hash), not a timer.
 *
 * The shape fits a Redis sorted set (score: the time a record is due) and an indexed SQL column
 * (`due_at`): a claim moves a due record's due time to the end of its lease, so a record whose
 * claimer dies is simply due again when the lease runs out, and the due records are found through
 * that index, never by scanning every record.
 *
 * Rules every store keeps (the tracker's exactly-once rests on them):
 * - One live lease per record: `claimDue` never returns a record whose lease is live.
 * - `commit` records the handled status only while the lease still holds the record (same atomic
 *   step: a Lua script, a row lock); otherwise it changes nothing and answers `false`. Its
 *   `handled.at` is later than the record's previous one, so the next change's `id` differs.
 * - A `nudge` never breaks a live lease; it is remembered, and the lease's `commit` or
 *   `reschedule` then makes the record due at once.
 * - One clock: every time is the store's own (Redis `TIME`, PostgreSQL `clock_timestamp()`, a
 *   monotonic clock in memory), never the caller's. The tracker passes durations (`leaseMs`,
 *   `delayMs`) and reads ages against `claimedAt`, so a wall-clock step on one host, or skew
 *   between the hosts of a fleet, never ends a live lease early or stops the schedule.
 *
 * Implementations: `MemoryStatusStore` (one process, bounded), `RedisStatusStore` from
 * `checkout-partner-sdk/redis`, `PostgresStatusStore` from `checkout-partner-sdk/postgres`.
 */
export interface StatusStore {
  /**
   * Starts watching the record, due at the store's now (idempotent: a record already watched keeps
   * its schedule; one whose watch ended starts a new watch and keeps its handled status).
   */
  watch(kind: StatusKind, externalId: string): Promise<void>;
  /** Stops watching the record (its handled status is kept for retention); nothing when unknown. */
  unwatch(kind: StatusKind, externalId: string): Promise<void>;
  /**
   * Asks for the record to be read at once: sets `nudgedAt` (and `event` when given), starts a
   * watch when it is not watched, and makes it due at `now - NUDGE_PRIORITY_MS` (ahead of any
   * backlog of records merely scheduled) unless a live lease holds it (then the lease's end of turn
   * makes it due so). A record whose last turn failed (`failures > 0`) keeps its due time (the
   * back-off): the nudge and its event are remembered for that read, so a stream of events never
   * turns a failing `onChange` into a busy loop. The tracker passes a bounded projection of the event
   * (see `MAX_TRACKED_EVENT_BYTES`), never a whole provider payload.
   */
  nudge(kind: StatusKind, externalId: string, nudge: { event?: WebhookEvent | undefined }): Promise<void>;
  /**
   * Claims up to `limit` records due at or before the store's now, earliest first, through the due
   * index: each gets a new lease for `leaseMs` (its due time becomes `now + leaseMs`).
   */
  claimDue(request: ClaimDueRequest): Promise<ClaimedStatusRecord[]>;
  /** Extends a live lease to the store's `now + leaseMs` (a heartbeat while `onChange` runs); `false` when the lease was lost. */
  extend(lease: StatusLease, extension: { leaseMs: number }): Promise<boolean>;
  /**
   * Records `status` as the record's handled status (and clears `nudgedAt`/`event` unless a newer
   * nudge came), ends the turn as `turn` says, and releases the lease — all in one atomic step
   * that first checks the lease still holds the record. `false`: the lease was lost, nothing changed.
   */
  commit(lease: StatusLease, status: string | null, turn: StatusTurn): Promise<boolean>;
  /** Ends the turn without a handled change (no change, a failed read or `onChange`); `false` when the lease was lost. */
  reschedule(lease: StatusLease, turn: StatusTurn): Promise<boolean>;
  /** Gives the record back, due at the store's now (a draining tracker); nothing when the lease was lost. */
  release(lease: StatusLease): Promise<void>;
  /**
   * Ends every live lease that `owner` holds, each record due at once (its nudge, event and
   * failures kept): a process restarted with the same `owner` takes back at start what its previous
   * life held, instead of waiting a whole lease. Resolves with how many leases it ended. Found
   * through an index of leases by owner (or the due index), never by scanning every record.
   */
  reclaim(owner: string): Promise<number>;
  /** The record's state, or `undefined` when the store has none (never watched, or past retention). */
  get(kind: StatusKind, externalId: string): Promise<StatusRecordState | undefined>;
  /**
   * How many records are watched now (both kinds), for the tracker's `checkout.tracker.watched`
   * gauge, called each time metrics are collected: keep it O(1) or index-backed (a counter, the due
   * index's size, a partial index), never a scan of every record. Optional: without it the gauge
   * reports nothing.
   */
  countWatched?(): Promise<number>;
  /**
   * The watched records that are overdue, for `tracker.health()` and the `checkout.tracker.overdue`
   * and `checkout.tracker.oldest_overdue` gauges: those not read successfully by the time their
   * normal schedule said (a turn with `failures` 0 and no `missed` meets it; a failed or missed
   * turn, or no turn at all, does not), and `oldestMs`, how late the most overdue one is (0 when
   * none), both on the store's clock. Optional: without it those report nothing.
   */
  overdue?(): Promise<OverdueRecords>;
  /**
   * Records that the record's read revealed `key`: a value provider events carry in place of the
   * externalId, as `name:value` (an order's `tradeId:t-1`). A record keeps its latest key, as long
   * as the record itself. The tracker calls it when a read shows a key it has not recorded.
   * Optional, with {@link StatusStore.findByKey}: without them an `otc.trade.*` event reaches its
   * order only through the partner's `resolveOrderExternalId` (or the tracker's polling).
   */
  rememberKey?(kind: StatusKind, externalId: string, key: string): Promise<void>;
  /** The externalId of the record whose read revealed `key` (a watched one first), or `undefined` when none did. */
  findByKey?(kind: StatusKind, key: string): Promise<string | undefined>;
  /**
   * When a nudge with an event (a provider event, through the webhook handler) last reached the
   * store, from any process: the store records it as part of `nudge`, and the tracker asks every
   * few seconds whether events flow (`undefined`: none yet). Optional: without it a tracker knows
   * only of the events nudged through itself (a fleet whose webhook handlers run elsewhere is then
   * read as one without webhooks: the safe side, which costs reads but never delays a change).
   */
  lastEvent?(): Promise<LastEvent | undefined>;
}

/**
 * A {@link StatusStore} that can run `onChange` inside its own database transaction, so the
 * partner's writes and the record's new handled status commit together (exactly-once effects even
 * when the process is killed). The tracker calls `transact` instead of `commit` when the store has it.
 */
export interface TransactionalStatusStore<Transaction> extends StatusStore {
  /**
   * As {@link StatusStore.watch}; with `transaction` (the partner's own open transaction, of the
   * store's driver) the watch is written through it and commits or rolls back with the partner's
   * write, so an order is never inserted without its watch.
   */
  watch(kind: StatusKind, externalId: string, options?: { transaction?: Transaction | undefined }): Promise<void>;
  /**
   * Opens a transaction, checks (and locks) that `lease` still holds the record, then calls
   * `work(transaction)`. When `work` resolves, records `status` and ends the turn as `turn` says
   * (as `commit` does) in the same transaction, commits, and resolves `true`. Resolves `false`
   * without calling `work` when the lease was lost. When `work` rejects, rolls back and rejects
   * with that same error (the tracker then reschedules). Any other failure rejects with the
   * store's error. When `options.signal` aborts while `work` runs (the tracker gave `onChange` up),
   * the store ends the transaction at once (rolled back, its connection closed) and rejects.
   */
  transact(
    lease: StatusLease,
    status: string | null,
    turn: StatusTurn,
    work: (transaction: Transaction) => Promise<void>,
    options?: TransactOptions,
  ): Promise<boolean>;
}
