import { retryWhileLeased } from './commit.js';
import { plainError, writeTrackerLog } from './logger.js';
import type { ResolvedTrackerOptions } from './options.js';
import { nextDelayMs, retryDelayMs, type Pace } from './schedule.js';
import { withLease } from './store-call.js';
import { monotonic, type TurnHandle } from './turn-handle.js';
import type { ClaimedStatusRecord, StatusNext, StatusTurn, WatchEndReason } from './types.js';

export function scheduled(config: ResolvedTrackerOptions, handle: TurnHandle, final: boolean, pace: Pace): StatusNext {
  if (final) return { end: 'final' };
  if (aged(config, handle)) return { end: 'max-age' };
  return { delayMs: nextDelayMs(config.schedule, handle.record, handle.storeNow(), pace) };
}

export function aged(config: ResolvedTrackerOptions, handle: TurnHandle): boolean {
  return handle.storeNow() - handle.record.watchedAt >= config.schedule.maxAgeMs;
}

/** Ends a turn without a handled change; a lost lease or a store still failing loses nothing (the lease lapses). */
export async function endTurn(
  config: ResolvedTrackerOptions,
  handle: TurnHandle,
  turn: StatusTurn,
  status: string | null | undefined,
  afterFailure = false,
): Promise<void> {
  const { record } = handle;
  const { kind, externalId } = record;
  let kept: boolean;
  try {
    kept = await retryWhileLeased(handle, handle.leaseEnds(config.leaseMs), () =>
      withLease(config, handle, 'reschedule', (lease) => config.store.reschedule(lease, turn)),
    );
  } catch (error) {
    writeTrackerLog(config.logger, { event: 'tracker.store-failed', kind, externalId, error: plainError(error) });
    return;
  }
  if (!kept) {
    writeTrackerLog(config.logger, { event: 'tracker.lease-lost', kind, externalId });
    return;
  }
  if ('end' in turn.next && !afterFailure && !toldBefore(record, turn.next.end, status)) reportEnd(config, record, turn.next.end, status);
}

/** A watch restarted on a record whose final status an earlier watch handed over was told its end then. */
function toldBefore(record: ClaimedStatusRecord, reason: WatchEndReason, status: string | null | undefined): boolean {
  const { handled } = record;
  return reason === 'final' && handled !== undefined && handled.status === status && handled.at < record.watchedAt;
}

/** After a store failure that recorded nothing: read again soon (no back-off of its own) while the lease lasts, else let it lapse. */
export async function giveBackSoon(config: ResolvedTrackerOptions, handle: TurnHandle, status: string | null): Promise<void> {
  if (monotonic() >= handle.leaseEnds(config.leaseMs)) return;
  const turn: StatusTurn = { failures: handle.record.failures, next: { delayMs: retryDelayMs(config.schedule, 1) }, missed: true };
  await endTurn(config, handle, turn, status, true);
}

export function reportEnd(
  config: ResolvedTrackerOptions,
  record: ClaimedStatusRecord,
  reason: WatchEndReason,
  status: string | null | undefined,
): void {
  const { kind, externalId } = record;
  writeTrackerLog(
    config.logger,
    reason === 'final'
      ? { event: 'tracker.ended', kind, externalId, status, reason }
      : { event: 'tracker.give-up', kind, externalId, status, reason },
  );
  const onWatchEnd = config.onWatchEnd;
  if (onWatchEnd === undefined) return;
  try {
    onWatchEnd({ kind, externalId, reason, status });
  } catch {
    // a callback that throws never changes what the tracker does
  }
}
