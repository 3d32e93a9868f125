import { NotFoundError } from '../errors.js';
import type { Order, Withdrawal } from '../schemas.js';
import { statusChange, trackerLag, trackerRead } from '../telemetry/hooks.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { StatusStoreTimeoutError } from './errors.js';
import { plainError, writeTrackerLog } from './logger.js';
import type { ResolvedTrackerOptions } from './options.js';
import { nextDelayMs, retryDelayMs } from './schedule.js';
import { announces, statusOf } from './status.js';
import type { ClaimedStatusRecord, StatusChange, StatusLease, StatusNext, StatusSource, StatusTurn, WatchEndReason } from './types.js';
import type { TrackerLogEntry } from '../logger.js';

/** This process's own clock for its deadlines: monotonic, so a wall-clock step never moves them. */
export const monotonic = (): number => performance.now();

/**
 * A record in this process's hands. Its read can be aborted (drain) until its change is being
 * handed over. The tracker holds one handle per record (kind and externalId), never two: a claim
 * that hands this process a record it already holds (its lease lapsed while the turn ran, and the
 * store gave it back) is adopted by the running turn (see {@link TurnHandle.adopt}).
 */
export class TurnHandle {
  readonly record: ClaimedStatusRecord;
  readonly controller = new AbortController();
  /** The lease the turn acts under: the claim's, or a later claim's once adopted. */
  lease: StatusLease;
  /** The store's clock at the latest claim (`claimedAt`): ages are measured from it, on the store's clock. */
  storeClaimedAt: number;
  /** This process's monotonic clock at the latest claim (pairs with `storeClaimedAt`). */
  claimedAtLocal: number;
  /**
   * This process's monotonic clock when the lease was last taken or extended (when the request was
   * sent, so never later than the store's own start of the lease): how long the process may still
   * act on the lease is measured from it, never from a wall clock.
   */
  heldSince: number;
  /** Set once `onChange` has been called: from then on the turn is finished, never aborted. */
  changing = false;
  /** A later claim of this same record while the turn ran, when there was one. */
  adopted: ClaimedStatusRecord | undefined;
  /** The last lease a store operation of the turn was sent with. */
  sentWith: StatusLease | undefined;

  constructor(record: ClaimedStatusRecord) {
    this.record = record;
    this.lease = record.lease;
    this.storeClaimedAt = record.claimedAt;
    this.claimedAtLocal = monotonic();
    this.heldSince = this.claimedAtLocal;
  }

  /**
   * Takes over a later claim of the record in hand: the running turn goes on under the new lease
   * (its deadlines counted from now), so the change it may be handing over is recorded once,
   * instead of a second `onChange` for the same record. Its lease was lost to this same process.
   */
  adopt(record: ClaimedStatusRecord): void {
    this.adopted = record;
    this.lease = record.lease;
    this.storeClaimedAt = record.claimedAt;
    this.claimedAtLocal = monotonic();
    this.heldSince = this.claimedAtLocal;
  }

  /** The lease was extended by a request sent at `sentAt` (monotonic) under `lease`. */
  extended(lease: StatusLease, sentAt: number): void {
    if (lease === this.lease) this.heldSince = Math.max(this.heldSince, sentAt);
  }

  /** The adopted claim when no store operation of the turn used its lease (the turn ended before): it needs a turn of its own. */
  takeUnused(): ClaimedStatusRecord | undefined {
    const adopted = this.adopted;
    if (adopted === undefined || this.sentWith === adopted.lease) return undefined;
    this.adopted = undefined;
    return adopted;
  }

  /** The store's clock now, as this process reckons it: the claim's `claimedAt` plus the monotonic time since. */
  storeNow(): number {
    return this.storeClaimedAt + (monotonic() - this.claimedAtLocal);
  }

  /** When the lease ends as far as this process knows (monotonic clock), unless extended. */
  leaseEnds(leaseMs: number): number {
    return this.heldSince + leaseMs;
  }
}

/**
 * Runs one store operation of the turn under the current lease, bounded by the store time limit
 * (a third of `leaseMs`): a store that never answers is given up (StatusStoreTimeoutError).
 */
function withLease<T>(config: ResolvedTrackerOptions, handle: TurnHandle, operation: string, work: (lease: StatusLease) => Promise<T>): Promise<T> {
  const lease = handle.lease;
  handle.sentWith = lease;
  return bounded(config.storeTimeoutMs, operation, work(lease));
}

/** `work`, or a StatusStoreTimeoutError once `ms` pass without its answer (its late answer is then ignored). */
export function bounded<T>(ms: number, operation: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StatusStoreTimeoutError(operation, ms)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

type Log = (entry: Omit<TrackerLogEntry, 'kind' | 'externalId'>) => void;

/**
 * One record's turn, under its lease: read it through the client, and when its status differs from
 * the last handled one, hand the change to `onChange` and record it in the same store step that
 * checks the lease (so a duplicate, a replay or a racing read of the same status calls nothing).
 * Never rejects: every failure ends in a reschedule (or the lease lapsing), which loses nothing.
 */
export async function runTurn(config: ResolvedTrackerOptions, handle: TurnHandle, telemetry: Telemetry): Promise<void> {
  const { record, controller } = handle;
  const { kind, externalId } = record;
  const log: Log = (entry) => writeTrackerLog(config.logger, { kind, externalId, ...entry });
  const source: StatusSource = record.event !== undefined ? 'webhook' : 'poll';
  const started = monotonic();

  let read: Order | Withdrawal;
  try {
    const options = { timeoutMs: config.readTimeoutMs, signal: controller.signal };
    // a `checkout.tracker.read` span (when OpenTelemetry is on), noting the status found
    read = await trackerRead(telemetry, kind, externalId, async (note) => {
      const record = kind === 'order' ? await config.client.getOrderByExternalId(externalId, options) : await config.client.getWithdrawalByExternalId(externalId, options);
      const found = statusOf(kind, record);
      note({ status: found, changed: !(handle.record.handled !== undefined && handle.record.handled.status === found) });
      return record;
    });
  } catch (error) {
    if (controller.signal.aborted) {
      // draining: give the record back at once, another process reads it
      await quietly(config, log, () => withLease(config, handle, 'release', (lease) => config.store.release(lease)));
      return;
    }
    if (isNotFound(error)) {
      log({ event: 'tracker.read', outcome: 'not-found', source, ms: elapsed(started) });
      // never found within notFoundForMs (an id the service does not know): the watch ends;
      // else not created yet (a checkout opened before its order): keep watching on schedule
      const lost = record.handled === undefined && handle.storeNow() - record.watchedAt >= config.schedule.notFoundForMs;
      await endTurn(config, handle, { failures: 0, next: lost ? { end: 'not-found' } : scheduled(config, handle, false) }, undefined);
      return;
    }
    log({ event: 'tracker.read', outcome: 'failed', source, ms: elapsed(started), error: plainError(error) });
    const failures = record.failures + 1;
    const next = aged(config, handle) ? { end: 'max-age' as const } : { delayMs: retryDelayMs(config.schedule, failures) };
    await endTurn(config, handle, { failures, next }, undefined);
    return;
  }

  const seenAt = handle.storeNow();
  const status = statusOf(kind, read);
  const previousStatus = record.handled?.status;
  const change = {
    kind,
    externalId,
    status,
    // left out on a first change: `null` would read as "the status handled before was none"
    ...(record.handled === undefined ? {} : { previousStatus: record.handled.status }),
    record: read,
    source,
    ...(record.event === undefined ? {} : { event: record.event }),
  } as StatusChange;
  const final = isFinal(config, change, log);
  const same = record.handled !== undefined && previousStatus === status;
  log({ event: 'tracker.read', outcome: same ? 'same' : 'changed', status, previousStatus, source, ms: elapsed(started) });
  if (same) {
    await endTurn(config, handle, { failures: 0, next: scheduled(config, handle, final) }, status);
    return;
  }

  // the read may have outlived the lease (a slow service): make sure this process still holds the
  // record before handing the change over, else another process may be handing it over too
  let held: boolean;
  try {
    const sentAt = monotonic();
    const lease = handle.lease;
    held = await withLease(config, handle, 'extend', () => config.store.extend(lease, { leaseMs: config.leaseMs }));
    if (held) handle.extended(lease, sentAt);
  } catch (error) {
    log({ event: 'tracker.store-failed', status, error: plainError(error) });
    return; // the lease lapses and the record is read again
  }
  if (!held) {
    log({ event: 'tracker.lease-lost', status, error: { name: 'LeaseLost', message: 'the lease passed to another process during the read; the change is left to it' } });
    return;
  }
  handle.changing = true;
  const facts = { kind, externalId, status, previousStatus, source };
  const heartbeat = new Heartbeat(config, handle, log);
  const changeStarted = monotonic();
  let failed: { error: unknown } | undefined;
  let committed: boolean;
  try {
    const keepNudge = record.event !== undefined && !final && !announces(record.event, change);
    const turn = (): StatusTurn => ({ failures: 0, next: scheduled(config, handle, final), keepNudge });
    if (config.transactional !== undefined) {
      // not bounded: onChange runs inside it (kept alive by the heartbeat); drain's own timeout bounds the wait for it
      handle.sentWith = handle.lease;
      committed = await config.transactional.transact(handle.lease, status, turn(), async (transaction) => {
        try {
          await statusChange(telemetry, facts, async () => config.onChange({ ...change, transaction }));
        } catch (error) {
          failed = { error };
          throw error;
        }
      });
    } else {
      try {
        await statusChange(telemetry, facts, async () => config.onChange(change));
      } catch (error) {
        failed = { error };
        throw error;
      }
      committed = await commitWhileLeased(config, handle, status, turn);
    }
  } catch (error) {
    heartbeat.stop();
    if (failed === undefined) {
      log({ event: 'tracker.store-failed', status, error: plainError(error) });
      return; // the lease lapses and the record is read again: nothing is recorded, nothing lost
    }
    log({ event: 'tracker.change-failed', status, previousStatus, source, ms: elapsed(changeStarted), error: plainError(failed.error) });
    const failures = record.failures + 1;
    await endTurn(config, handle, { failures, next: { delayMs: retryDelayMs(config.schedule, failures) } }, status, true);
    return;
  }
  heartbeat.stop();
  if (!committed) {
    log({ event: 'tracker.lease-lost', status, error: { name: 'LeaseLost', message: 'the lease passed to another process before the change was recorded; it is not recorded by this process' } });
    return;
  }
  log({ event: 'tracker.change', status, previousStatus, source, ms: elapsed(changeStarted) });
  const dueAt = dueTime(record);
  // once per handed-over change (not per read of it), so a retried onChange does not count it twice
  if (dueAt !== undefined) trackerLag(telemetry, Math.max(0, seenAt - dueAt), kind, source);
  const next = scheduled(config, handle, final);
  if ('end' in next) reportEnd(config, record, next.end, status);
}

function elapsed(since: number): number {
  return Math.round(monotonic() - since);
}

/**
 * When the read that saw a change was due: the store's `dueAt`, or the nudge when it came later
 * (a nudged record is put `NUDGE_PRIORITY_MS` before the nudge in the due index, to be read first;
 * its lag counts from the nudge). `undefined` when the store does not give `dueAt`.
 */
function dueTime(record: ClaimedStatusRecord): number | undefined {
  if (record.dueAt === undefined) return undefined;
  return record.nudgedAt === undefined ? record.dueAt : Math.max(record.dueAt, record.nudgedAt);
}

/** What comes after a turn that needed nothing more: the watch ends (final, or too old), else the next scheduled read. */
function scheduled(config: ResolvedTrackerOptions, handle: TurnHandle, final: boolean): StatusNext {
  if (final) return { end: 'final' };
  if (aged(config, handle)) return { end: 'max-age' };
  // a record whose change was just handled is no longer nudged (the store clears it)
  return { delayMs: nextDelayMs(config.schedule, handle.record, handle.storeNow()) };
}

/** Whether the watch has run `maxAgeMs`: an age on the store's clock (its `watchedAt` against the claim's `claimedAt`). */
function aged(config: ResolvedTrackerOptions, handle: TurnHandle): boolean {
  return handle.storeNow() - handle.record.watchedAt >= config.schedule.maxAgeMs;
}

/** Ends a turn without a handled change; a lost lease or a failing store loses nothing (the record is due again). */
async function endTurn(config: ResolvedTrackerOptions, handle: TurnHandle, turn: StatusTurn, status: string | null | undefined, afterFailure = false): Promise<void> {
  const { record } = handle;
  const { kind, externalId } = record;
  let kept: boolean;
  try {
    kept = await withLease(config, handle, 'reschedule', (lease) => config.store.reschedule(lease, turn));
  } catch (error) {
    writeTrackerLog(config.logger, { event: 'tracker.store-failed', kind, externalId, error: plainError(error) });
    return;
  }
  if (!kept) {
    writeTrackerLog(config.logger, { event: 'tracker.lease-lost', kind, externalId });
    return;
  }
  if ('end' in turn.next && !afterFailure) reportEnd(config, record, turn.next.end, status);
}

function reportEnd(config: ResolvedTrackerOptions, record: ClaimedStatusRecord, reason: WatchEndReason, status: string | null | undefined): void {
  const { kind, externalId } = record;
  writeTrackerLog(config.logger, reason === 'final' ? { event: 'tracker.ended', kind, externalId, status, reason } : { event: 'tracker.give-up', kind, externalId, status, reason });
  const onWatchEnd = config.onWatchEnd;
  if (onWatchEnd === undefined) return;
  try {
    onWatchEnd({ kind, externalId, reason, status });
  } catch {
    // a callback that throws never changes what the tracker does
  }
}

function isFinal(config: ResolvedTrackerOptions, change: StatusChange, log: Log): boolean {
  try {
    return config.isFinal(change) === true;
  } catch (error) {
    // an isFinal that throws keeps the record watched (ending it could lose a later change)
    log({ event: 'tracker.change-failed', status: change.status, error: plainError(error) });
    return false;
  }
}

/** First retry of a failed commit; the next ones double up to {@link COMMIT_RETRY_MAX_MS}, while the lease lasts. */
const COMMIT_RETRY_FIRST_MS = 50;
const COMMIT_RETRY_MAX_MS = 2_000;

/**
 * Records the handled status, retrying a store that fails (a Redis restart) while this process's
 * lease still holds (on its monotonic clock, as it stood when `onChange` resolved): `onChange` did its work, and recording it now is what
 * keeps it from running again. A commit refused because the lease was taken over by this same
 * process (the turn adopted a later claim) is made again under the adopted lease, when nothing was
 * handled meanwhile. Rejects once the lease has passed without a successful commit.
 */
async function commitWhileLeased(
  config: ResolvedTrackerOptions,
  handle: TurnHandle,
  status: string | null,
  turn: () => StatusTurn,
): Promise<boolean> {
  let delay = COMMIT_RETRY_FIRST_MS;
  // the lease as it stood when onChange resolved: renewals meanwhile do not make a hung store's retries endless
  const deadline = handle.leaseEnds(config.leaseMs);
  for (let attempt = 0; ; attempt += 1) {
    try {
      const sent = handle.lease;
      const committed = await withLease(config, handle, 'commit', (lease) => config.store.commit(lease, status, turn()));
      if (committed || handle.lease === sent || !unchangedSinceClaim(handle) || attempt > 8) return committed;
      // adopted meanwhile: the lease is this process's again, commit under it
    } catch (error) {
      if (monotonic() + delay >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, COMMIT_RETRY_MAX_MS);
    }
  }
}

/** Whether the adopted claim shows the record as the turn's own claim did (nobody handled a change in between). */
function unchangedSinceClaim(handle: TurnHandle): boolean {
  const before = handle.record.handled;
  const now = handle.adopted?.handled;
  if (handle.adopted === undefined) return false;
  return before === undefined ? now === undefined : now !== undefined && now.status === before.status && now.at === before.at;
}

/** Extends the lease every third of `leaseMs` while `onChange` runs, so a slow one keeps it. */
class Heartbeat {
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(config: ResolvedTrackerOptions, handle: TurnHandle, log: Log) {
    this.#timer = setInterval(() => {
      const sentAt = monotonic();
      const lease = handle.lease;
      // a lease found lost is reported once, by the commit that then fails
      bounded(config.storeTimeoutMs, 'extend', config.store.extend(lease, { leaseMs: config.leaseMs })).then(
        (held) => {
          if (held) handle.extended(lease, sentAt);
        },
        (error: unknown) => log({ event: 'tracker.store-failed', error: plainError(error) }),
      );
    }, config.leaseMs / 3);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

async function quietly(config: ResolvedTrackerOptions, log: Log, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    log({ event: 'tracker.store-failed', error: plainError(error) });
  }
}

/** A 404 from the client: by class, or by its literal name when it comes from another copy of the SDK. */
function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError || (error instanceof Error && error.name === 'NotFoundError');
}
