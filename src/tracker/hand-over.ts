import { foundFirstByRead, handlingAbandoned, statusChange, trackerLag } from '../telemetry/hooks.js';
import { withSignal, type HandlingAbandonedError } from '../handling.js';
import { commitWhileLeased } from './commit.js';
import { Heartbeat } from './heartbeat.js';
import { plainError } from './logger.js';
import { retryDelayMs, type Pace } from './schedule.js';
import { announcedChange } from '../event-types.js';
import type { RecordOf, StatusKind } from '../kinds.js';
import { announces } from './status.js';
import { elapsed, type TurnContext } from './turn-context.js';
import { endTurn, giveBackSoon, reportEnd, scheduled } from './turn-end.js';
import { monotonic } from './turn-handle.js';
import type { ClaimedStatusRecord, StatusChange, StatusTurn } from './types.js';

// The second half of a turn: a status that differs from the last handled one goes to `onChange`,
// and is recorded under the lease so that it is never handed over twice.

/** A status read by the turn that differs from the last handled one. */
export interface NewStatus {
  change: StatusChange;
  status: string | null;
  /** What `isFinal` said of it: the watch ends once it is recorded. */
  final: boolean;
  /** The store's clock when it was read: the change's lag is measured to it. */
  seenAt: number;
  /** What the read tells the schedule (see `nextDelayMs`). */
  pace: Pace;
  /** The record as read (whether its change is one an event announces). */
  read: RecordOf<StatusKind>;
}

/** How calling `onChange` and recording the status ended. */
type HandOverResult = { outcome: 'committed' | 'lease-lost' } | { outcome: 'store-failed' | 'change-failed'; error: unknown };

/**
 * Hands the new status to `onChange` and records it, the lease kept alive meanwhile (a slow
 * `onChange` keeps its record). From here on drain waits for the turn, up to its time limit. A
 * failing `onChange` is retried later (the record rescheduled); a failing store or a lost lease
 * lets the lease lapse, so the record is read again and nothing is lost. An `onChange` given up
 * (past `maxHandlingMs`, by drain, its lease lost) is no longer waited for: its lease lapses.
 */
export async function handOver(turn: TurnContext, seen: NewStatus): Promise<void> {
  const { config, handle, log, source } = turn;
  const { record } = handle;
  const { status } = seen;
  const previousStatus = record.handled?.status;
  handle.changing = true;
  const heartbeat = new Heartbeat(config, handle, log);
  const changeStarted = monotonic();
  const result = await changeAndCommit(turn, seen);
  heartbeat.stop();
  const { hold } = handle;
  if (result.outcome !== 'committed' && hold.signal.aborted && hold.callbackBegan) {
    const error = hold.signal.reason as HandlingAbandonedError;
    handlingAbandoned(turn.telemetry, 'onChange', error.reason);
    const entry = { status, previousStatus, source, ms: elapsed(changeStarted), error: plainError(error) };
    log(error.reason === 'lease-lost' ? { event: 'tracker.lease-lost', ...entry } : { event: 'tracker.change-failed', ...entry });
    return;
  }
  // the transaction ended under a running onChange (its session died): it is let go too
  if (hold.callbackRunning) hold.giveUp('lease-lost');
  switch (result.outcome) {
    case 'committed':
      log({ event: 'tracker.change', status, previousStatus, source, ms: elapsed(changeStarted) });
      reportHandedOver(turn, seen);
      return;
    case 'lease-lost':
      log({
        event: 'tracker.lease-lost',
        status,
        error: {
          name: 'LeaseLost',
          message: 'the lease passed to another process before the change was recorded; it is not recorded by this process',
        },
      });
      return;
    case 'store-failed':
      // nothing recorded, nothing lost: the record is read again soon, or once the lease lapses
      log({ event: 'tracker.store-failed', status, error: plainError(result.error) });
      await giveBackSoon(config, handle, status);
      return;
    case 'change-failed': {
      log({ event: 'tracker.change-failed', status, previousStatus, source, ms: elapsed(changeStarted), error: plainError(result.error) });
      const failures = record.failures + 1;
      await endTurn(config, handle, { failures, next: { delayMs: retryDelayMs(config.schedule, failures) } }, status, true);
      return;
    }
  }
}

/**
 * Calls `onChange` and records the status: inside the store's transaction when the store is
 * transactional (one commit for both), else `onChange` first and then a commit retried while the
 * lease lasts. An `onChange` failure is told apart from a store failure.
 */
async function changeAndCommit(turn: TurnContext, seen: NewStatus): Promise<HandOverResult> {
  const { config, handle, telemetry, source } = turn;
  const { record, hold } = handle;
  const { change, status, final } = seen;
  const facts = { kind: record.kind, externalId: record.externalId, status, previousStatus: record.handled?.status, source };
  let failed: { error: unknown } | undefined;
  const callOnChange = async (handed: StatusChange & { transaction?: unknown }): Promise<void> => {
    try {
      await statusChange(telemetry, facts, () => hold.run(() => config.onChange(withSignal(handed, hold.signal)), config.maxHandlingMs));
    } catch (error) {
      failed = { error };
      throw error;
    }
  };
  const keepNudge = record.event !== undefined && !final && !announces(record.event, change);
  // the nudge is cleared with the change unless kept: it then needs no more fast reads
  const pace = { ...seen.pace, nudgeAnswered: seen.pace.nudgeAnswered || !keepNudge };
  const recorded = (): StatusTurn => ({ failures: 0, next: scheduled(config, handle, final, pace), keepNudge });
  try {
    let committed: boolean;
    if (config.transactional !== undefined) {
      // not bounded by the store time limit: onChange runs inside it (kept alive by the heartbeat), bounded by the hold
      handle.sentWith = handle.lease;
      committed = await config.transactional.transact(
        handle.lease,
        status,
        recorded(),
        (transaction) => callOnChange({ ...change, transaction }),
        { signal: hold.signal },
      );
    } else {
      await callOnChange(change);
      committed = await commitWhileLeased(config, handle, status, recorded);
    }
    return { outcome: committed ? 'committed' : 'lease-lost' };
  } catch (error) {
    return failed === undefined ? { outcome: 'store-failed', error } : { outcome: 'change-failed', error: failed.error };
  }
}

/**
 * After a recorded change: its lag (once per change, not per read of it, so a retried `onChange`
 * counts once), a change an event announces that a poll found first (lost or late webhooks), and
 * the watch's end if it ended.
 */
function reportHandedOver(turn: TurnContext, seen: NewStatus): void {
  const { config, handle, telemetry, source } = turn;
  const { record } = handle;
  const dueAt = dueTime(record);
  if (dueAt !== undefined) trackerLag(telemetry, Math.max(0, seen.seenAt - dueAt), record.kind, source);
  if (source === 'poll' && announcedChange(record.kind, seen.read)) {
    config.events.foundFirst();
    foundFirstByRead(telemetry, record.kind);
  }
  const next = scheduled(config, handle, seen.final, seen.pace);
  if ('end' in next) reportEnd(config, record, next.end, seen.status);
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
