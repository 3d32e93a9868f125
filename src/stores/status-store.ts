import type { StatusKind } from '../kinds.js';
import type { WebhookEvent } from '../webhook-event.js';
import type { TransactOptions } from './event-store.js';

export type { KindRecords, StatusKind } from '../kinds.js';

/** How far before its own now a store puts a nudged record's due time (one day), so it is claimed ahead of any backlog. */
export const NUDGE_PRIORITY_MS = 86_400_000;

/** A record's lease from {@link StatusStore.claimDue}, passed back unchanged: the store acts only while the record holds its `token`. */
export interface StatusLease {
  /** The record's kind. */
  readonly kind: StatusKind;
  /** The record's externalId. */
  readonly externalId: string;
  /** Who holds it (the tracker's `owner`). */
  readonly owner: string;
  /** Unique per claim; what the store compares. */
  readonly token: string;
}

/** What a store keeps per record, as `get` and `claimDue` return it; times are milliseconds on the store's clock, never the caller's. */
export interface StatusRecordState {
  /** The record's kind. */
  kind: StatusKind;
  /** The record's externalId. */
  externalId: string;
  /** Whether the record is read on schedule; `false` once its watch ended (kept for retention). */
  watching: boolean;
  /** When the current watch began. */
  watchedAt: number;
  /** The status last handed to an `onChange` that resolved (`null`: a handled "no status yet"); absent before the first. */
  handled?:
    | {
        /** The status handled. */
        status: string | null;
        /** When it was recorded, always after the previous `at` (even within one clock tick): `StatusChange.id` derives from it. */
        at: number;
      }
    | undefined;
  /** When an event last asked to read the record; cleared when a change is handled, unless a newer nudge came meanwhile. */
  nudgedAt?: number | undefined;
  /** The latest nudge's event (the tracker's bounded projection), handed over as `StatusChange.event`; cleared with `nudgedAt`. */
  event?: WebhookEvent | undefined;
  /** Reads or `onChange` calls that failed in a row (the tracker backs off by it); 0 after a success. */
  failures: number;
}

/** A due record, claimed: its state as of the claim, and the lease that now holds it. */
export interface ClaimedStatusRecord extends StatusRecordState {
  /** The lease the claim took; pass it back to the store's other operations. */
  lease: StatusLease;
  /** The store's clock at the claim: the tracker measures ages as differences from it, never against its own clock. */
  claimedAt: number;
  /** When the record was due just before this claim; optional, for the `checkout.tracker.lag` metric. */
  dueAt?: number | undefined;
}

/** What {@link StatusStore.claimDue} is asked for. */
export interface ClaimDueRequest {
  /** At most this many records. */
  limit: number;
  /** How long each lease holds, in milliseconds, unless extended: the record is due again when it runs out. */
  leaseMs: number;
  /** The claiming tracker's owner id, stored with the lease. */
  owner: string;
}

/** How a turn ends: read the record again after `delayMs`, or end its watch (its handled status kept for the store's retention). */
export type StatusNext =
  | {
      /** Read the record again after this many milliseconds. */
      delayMs: number;
    }
  | {
      /** `'final'`: a final status; `'max-age'`: the watch ran out; `'not-found'`: a 404 throughout the tracker's `notFoundForMs`. */
      end: 'final' | 'max-age' | 'not-found';
    };

/** What {@link StatusStore.commit} and {@link StatusStore.reschedule} record as they release the lease. */
export interface StatusTurn {
  /** What comes next (`delayMs` from the store's now), unless a nudge reached a turn with `failures` 0: then the record is due at once. */
  next: StatusNext;
  /** The new count of failures in a row (0 after a read that was handled or needed nothing). */
  failures: number;
  /** For `commit`: keep `nudgedAt` and `event`, because the change handled is not yet the one the nudge's event announced. */
  keepNudge?: boolean | undefined;
  /** The service failed the read (no answer, 5xx, 429), not the record: it stays overdue from the read it owed until a turn succeeds. */
  missed?: boolean | undefined;
}

/** What {@link StatusStore.overdue} reports. */
export interface OverdueRecords {
  /** How many watched records were not read successfully when their schedule said. */
  count: number;
  /** How late the most overdue one is, in milliseconds on the store's clock (0 when none is). */
  oldestMs: number;
}

/** What {@link StatusStore.lastEvent} reports. */
export interface LastEvent {
  /** When the last nudge with an event was stored, on the store's clock. */
  at: number;
  /** How long ago that was, on the same clock. */
  ageMs: number;
}

/** Where a status tracker keeps its records, for a fleet to hand each change over once; due records are found by an index, never a scan. */
export interface StatusStore {
  /** Starts watching the record, due now; a watched record keeps its schedule, an ended one its handled status. */
  watch(kind: StatusKind, externalId: string): Promise<void>;
  /** Stops watching the record (its handled status kept for retention); nothing when unknown. */
  unwatch(kind: StatusKind, externalId: string): Promise<void>;
  /** Sets `nudgedAt` (and `event`), watches the record, makes it due at `now - NUDGE_PRIORITY_MS` unless leased or its last turn failed. */
  nudge(kind: StatusKind, externalId: string, nudge: { event?: WebhookEvent | undefined }): Promise<void>;
  /** Claims up to `limit` records due by the store's now, earliest first, none under a live lease: each due again at `now + leaseMs`. */
  claimDue(request: ClaimDueRequest): Promise<ClaimedStatusRecord[]>;
  /** Extends a live lease to the store's `now + leaseMs` (the heartbeat while `onChange` runs); `false` when the lease was lost. */
  extend(lease: StatusLease, extension: { leaseMs: number }): Promise<boolean>;
  /** Records `status` (clearing `nudgedAt`, `event` unless a newer nudge came) and ends the turn, atomically while leased; else `false`. */
  commit(lease: StatusLease, status: string | null, turn: StatusTurn): Promise<boolean>;
  /** Ends the turn without a handled change; `false` when the lease was lost. */
  reschedule(lease: StatusLease, turn: StatusTurn): Promise<boolean>;
  /** Gives the record back, due now (a draining tracker); nothing when the lease was lost. */
  release(lease: StatusLease): Promise<void>;
  /** Ends every live lease `owner` holds, each record due at once (nudge, event, failures kept); resolves how many. No scan. */
  reclaim(owner: string): Promise<number>;
  /** The record's state, or `undefined` (never watched, or past retention). */
  get(kind: StatusKind, externalId: string): Promise<StatusRecordState | undefined>;
  /** How many records are watched now, for the `checkout.tracker.watched` gauge: O(1) or index-backed, never a scan. Optional. */
  countWatched?(): Promise<number>;
  /** The watched records past their schedule (a failed or missed turn does not meet it), for `tracker.health()` and gauges. Optional. */
  overdue?(): Promise<OverdueRecords>;
  /** Keeps `key` (`name:value`, e.g. `tradeId:t-1`), the latest one a read of the record revealed, as long as the record. Optional. */
  rememberKey?(kind: StatusKind, externalId: string, key: string): Promise<void>;
  /** The externalId of the record whose read revealed `key` (a watched one first), or `undefined`. Optional, with `rememberKey`. */
  findByKey?(kind: StatusKind, key: string): Promise<string | undefined>;
  /** When an event's nudge last reached the store, from any process (`undefined`: none yet). Optional: else a tracker sees only its own. */
  lastEvent?(): Promise<LastEvent | undefined>;
}

/** A {@link StatusStore} that runs `onChange` in its own transaction, so the partner's writes and the handled status commit together. */
export interface TransactionalStatusStore<Transaction> extends StatusStore {
  /** As {@link StatusStore.watch}; with `transaction` (the partner's open one) the watch commits or rolls back with the partner's write. */
  watch(kind: StatusKind, externalId: string, options?: { transaction?: Transaction | undefined }): Promise<void>;
  /**
   * Used instead of `commit`: checks and locks the lease in a transaction, runs `work(transaction)`, records as `commit` does, commits:
   * `true` (`false`, `work` not called: lease lost). `work` rejects: rolls back, rejects with that error; any other failure rejects
   * with the store's error; `options.signal` aborting ends the transaction at once.
   */
  transact(
    lease: StatusLease,
    status: string | null,
    turn: StatusTurn,
    work: (transaction: Transaction) => Promise<void>,
    options?: TransactOptions,
  ): Promise<boolean>;
}
