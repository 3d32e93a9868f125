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

/** A status read by the turn that differs from the last handled one. */
export interface NewStatus {
  change: StatusChange;
  status: string | null;
  final: boolean;
  /** The store's clock at the read: the change's lag counts to it. */
  seenAt: number;
  pace: Pace;
  read: RecordOf<StatusKind>;
}

type HandOverResult = { outcome: 'committed' | 'lease-lost' } | { outcome: 'store-failed' | 'change-failed'; error: unknown };

/**
 * Hands the new status to `onChange` and records it, the lease renewed meanwhile; drain waits for it.
 * A throwing `onChange` is retried later; a store failure, a lost lease or a given-up `onChange` lets the lease lapse.
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
  // the transaction ended under a running onChange (its session died): let it go too
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

/** `onChange` and the commit: one transaction with a transactional store, else `onChange` then a commit retried while leased. */
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
  // a nudge not kept is cleared with the change: no more fast reads for it
  const pace = { ...seen.pace, nudgeAnswered: seen.pace.nudgeAnswered || !keepNudge };
  const recorded = (): StatusTurn => ({ failures: 0, next: scheduled(config, handle, final, pace), keepNudge });
  try {
    let committed: boolean;
    if (config.transactional !== undefined) {
      // not bounded by the store time limit: onChange runs inside it, bounded by the hold
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

/** After a recorded change: its lag (once per change, not per read), an announced change a poll found first, the watch's end. */
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

/** When the read was due: `dueAt`, or a later nudge (a nudged record is due `NUDGE_PRIORITY_MS` early; its lag counts from the nudge). */
function dueTime(record: ClaimedStatusRecord): number | undefined {
  if (record.dueAt === undefined) return undefined;
  return record.nudgedAt === undefined ? record.dueAt : Math.max(record.dueAt, record.nudgedAt);
}
