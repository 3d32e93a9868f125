import { NotFoundError } from '../errors.js';
import type { Order, Withdrawal } from '../schemas.js';
import { statusChange, trackerLag, trackerRead } from '../telemetry/hooks.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { plainError, writeTrackerLog } from './logger.js';
import type { ResolvedTrackerOptions } from './options.js';
import { nextDelayMs, retryDelayMs } from './schedule.js';
import { announces, statusOf } from './status.js';
import type { ClaimedStatusRecord, StatusChange, StatusSource, StatusNext, StatusTurn, TrackerLogEntry, WatchEndReason } from './types.js';

/** A record in this process's hands: its read can be aborted (drain) until its change is being handed over. */
export interface TurnHandle {
  readonly record: ClaimedStatusRecord;
  readonly controller: AbortController;
  /** When the claim was made (local clock): the lease runs from then. */
  readonly claimedAt: number;
  /** Set once `onChange` has been called: from then on the turn is finished, never aborted. */
  changing: boolean;
}

/**
 * One record's turn, under its lease: read it through the client, and when its status differs from
 * the last handled one, hand the change to `onChange` and record it in the same store step that
 * checks the lease (so a duplicate, a replay or a racing read of the same status calls nothing).
 * Never rejects: every failure ends in a reschedule (or the lease lapsing), which loses nothing.
 */
export async function runTurn(config: ResolvedTrackerOptions, handle: TurnHandle, telemetry: Telemetry): Promise<void> {
  const { record, controller } = handle;
  const { kind, externalId, lease } = record;
  const log = (entry: Omit<TrackerLogEntry, 'kind' | 'externalId'>) => writeTrackerLog(config.logger, { kind, externalId, ...entry });
  const source: StatusSource = record.event !== undefined ? 'webhook' : 'poll';
  const started = Date.now();

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
      await quietly(config, () => config.store.release(lease, Date.now()));
      return;
    }
    if (isNotFound(error)) {
      // not created yet (a checkout opened before its order): keep watching on schedule
      log({ type: 'read', outcome: 'not-found', source, ms: Date.now() - started });
      await endTurn(config, record, { failures: 0, next: scheduled(config, record, false) }, undefined);
      return;
    }
    log({ type: 'read', outcome: 'failed', source, ms: Date.now() - started, error: plainError(error) });
    const failures = record.failures + 1;
    const next = aged(config, record) ? { end: 'max-age' as const } : { delayMs: retryDelayMs(config.schedule, failures) };
    await endTurn(config, record, { failures, next }, undefined);
    return;
  }

  const seenAt = Date.now();
  const status = statusOf(kind, read);
  const previousStatus = record.handled?.status;
  const change = {
    kind,
    externalId,
    status,
    previousStatus,
    record: read,
    source,
    ...(record.event === undefined ? {} : { event: record.event }),
  } as StatusChange;
  const final = isFinal(config, change, log);
  const same = record.handled !== undefined && previousStatus === status;
  log({ type: 'read', outcome: same ? 'same' : 'changed', status, previousStatus, source, ms: Date.now() - started });
  if (same) {
    await endTurn(config, record, { failures: 0, next: scheduled(config, record, final) }, status);
    return;
  }

  // the read may have outlived the lease (a slow service): make sure this process still holds the
  // record before handing the change over, else another process may be handing it over too
  let held: boolean;
  try {
    held = await config.store.extend(lease, { now: Date.now(), leaseMs: config.leaseMs });
  } catch (error) {
    log({ type: 'store-failed', status, error: plainError(error) });
    return; // the lease lapses and the record is read again
  }
  if (!held) {
    log({ type: 'lease-lost', status, error: { name: 'LeaseLost', message: 'the lease passed to another process during the read; the change is left to it' } });
    return;
  }
  handle.changing = true;
  const facts = { kind, externalId, status, previousStatus, source };
  const heartbeat = new Heartbeat(config, record, Date.now(), log);
  const changeStarted = Date.now();
  let failed: { error: unknown } | undefined;
  let committed: boolean;
  try {
    const keepNudge = record.event !== undefined && !final && !announces(record.event, change);
    const turn = (): StatusTurn => ({ now: Date.now(), failures: 0, next: scheduled(config, record, final), keepNudge });
    if (config.transactional !== undefined) {
      committed = await config.transactional.transact(lease, status, turn(), async (transaction) => {
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
      committed = await commitWhileLeased(config, record, status, turn, heartbeat);
    }
  } catch (error) {
    heartbeat.stop();
    if (failed === undefined) {
      log({ type: 'store-failed', status, error: plainError(error) });
      return; // the lease lapses and the record is read again: nothing is recorded, nothing lost
    }
    log({ type: 'change-failed', status, previousStatus, source, ms: Date.now() - changeStarted, error: plainError(failed.error) });
    const failures = record.failures + 1;
    await endTurn(config, record, { failures, next: { delayMs: retryDelayMs(config.schedule, failures) } }, status, true);
    return;
  }
  heartbeat.stop();
  if (!committed) {
    log({ type: 'lease-lost', status, error: { name: 'LeaseLost', message: 'the lease passed to another process before the change was recorded; it is not recorded by this process' } });
    return;
  }
  log({ type: 'change', status, previousStatus, source, ms: Date.now() - changeStarted });
  const dueAt = dueTime(record);
  // once per handed-over change (not per read of it), so a retried onChange does not count it twice
  if (dueAt !== undefined) trackerLag(telemetry, seenAt - dueAt, kind, source);
  const next = scheduled(config, record, final);
  if ('end' in next) reportEnd(config, record, next.end, status);
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
function scheduled(config: ResolvedTrackerOptions, record: ClaimedStatusRecord, final: boolean): StatusNext {
  if (final) return { end: 'final' };
  if (aged(config, record)) return { end: 'max-age' };
  // a record whose change was just handled is no longer nudged (the store clears it)
  return { delayMs: nextDelayMs(config.schedule, record, Date.now()) };
}

function aged(config: ResolvedTrackerOptions, record: ClaimedStatusRecord): boolean {
  return Date.now() - record.watchedAt >= config.schedule.maxAgeMs;
}

/** Ends a turn without a handled change; a lost lease or a failing store loses nothing (the record is due again). */
async function endTurn(
  config: ResolvedTrackerOptions,
  record: ClaimedStatusRecord,
  turn: Omit<StatusTurn, 'now'>,
  status: string | null | undefined,
  afterFailure = false,
): Promise<void> {
  const { kind, externalId } = record;
  let kept: boolean;
  try {
    kept = await config.store.reschedule(record.lease, { ...turn, now: Date.now() });
  } catch (error) {
    writeTrackerLog(config.logger, { type: 'store-failed', kind, externalId, error: plainError(error) });
    return;
  }
  if (!kept) {
    writeTrackerLog(config.logger, { type: 'lease-lost', kind, externalId });
    return;
  }
  if ('end' in turn.next && !afterFailure) reportEnd(config, record, turn.next.end, status);
}

function reportEnd(config: ResolvedTrackerOptions, record: ClaimedStatusRecord, reason: WatchEndReason, status: string | null | undefined): void {
  const { kind, externalId } = record;
  writeTrackerLog(config.logger, reason === 'final' ? { type: 'ended', kind, externalId, status } : { type: 'give-up', kind, externalId, status });
  const onWatchEnd = config.onWatchEnd;
  if (onWatchEnd === undefined) return;
  try {
    onWatchEnd({ kind, externalId, reason, status });
  } catch {
    // a callback that throws never changes what the tracker does
  }
}

function isFinal(config: ResolvedTrackerOptions, change: StatusChange, log: (entry: Omit<TrackerLogEntry, 'kind' | 'externalId'>) => void): boolean {
  try {
    return config.isFinal(change) === true;
  } catch (error) {
    // an isFinal that throws keeps the record watched (ending it could lose a later change)
    log({ type: 'change-failed', status: change.status, error: plainError(error) });
    return false;
  }
}

/** First retry of a failed commit; the next ones double up to {@link COMMIT_RETRY_MAX_MS}, while the lease lasts. */
const COMMIT_RETRY_FIRST_MS = 50;
const COMMIT_RETRY_MAX_MS = 2_000;

/**
 * Records the handled status, retrying a store that fails (a Redis restart) while this process's
 * lease still holds: `onChange` did its work, and recording it now is what keeps it from running
 * again. Rejects once the lease has passed without a successful commit.
 */
async function commitWhileLeased(
  config: ResolvedTrackerOptions,
  record: ClaimedStatusRecord,
  status: string | null,
  turn: () => StatusTurn,
  heartbeat: Heartbeat,
): Promise<boolean> {
  let delay = COMMIT_RETRY_FIRST_MS;
  for (;;) {
    try {
      return await config.store.commit(record.lease, status, turn());
    } catch (error) {
      if (Date.now() + delay >= heartbeat.until) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, COMMIT_RETRY_MAX_MS);
    }
  }
}

/** Extends the lease every third of `leaseMs` while `onChange` runs, so a slow one keeps it. */
class Heartbeat {
  /** When the lease ends as far as this process knows (local clock). */
  until: number;
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(
    config: ResolvedTrackerOptions,
    record: ClaimedStatusRecord,
    extendedAt: number,
    log: (entry: Omit<TrackerLogEntry, 'kind' | 'externalId'>) => void,
  ) {
    this.until = extendedAt + config.leaseMs;
    this.#timer = setInterval(() => {
      const now = Date.now();
      // a lease found lost is reported once, by the commit that then fails
      config.store.extend(record.lease, { now, leaseMs: config.leaseMs }).then(
        (held) => {
          if (held) this.until = now + config.leaseMs;
        },
        (error: unknown) => log({ type: 'store-failed', error: plainError(error) }),
      );
    }, config.leaseMs / 3);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

async function quietly(config: ResolvedTrackerOptions, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    writeTrackerLog(config.logger, { type: 'store-failed', error: plainError(error) });
  }
}

/** A 404 from the client: by class, or by its literal name when it comes from another copy of the SDK. */
function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError || (error instanceof Error && error.name === 'NotFoundError');
}
