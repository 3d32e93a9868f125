import { isNotFound } from '../errors.js';
import { readRecord as readKind, type RecordOf, type StatusKind } from '../kinds.js';
import { trackerRead } from '../telemetry/hooks.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { changeId } from './change-id.js';
import { handOver } from './hand-over.js';
import { plainError, writeTrackerLog } from './logger.js';
import type { ResolvedTrackerOptions } from './options.js';
import { nextDelayMs, retryDelayMs, soonDelayMs, UNANNOUNCED, type Pace } from './schedule.js';
import { confirmsEvent } from '../event-types.js';
import { isServiceFailure, type ServiceHealth } from './service-health.js';
import { statusOf } from './status.js';
import { withLease } from './store-call.js';
import { elapsed, type TurnContext, type TurnLog } from './turn-context.js';
import { aged, endTurn, giveBackSoon, scheduled } from './turn-end.js';
import { monotonic, type TurnHandle } from './turn-handle.js';
import type { StatusChange } from './types.js';
import { withSignal } from '../handling.js';

/**
 * One record's turn under its lease: read it; a status other than the last handled one goes to
 * `onChange`. Never rejects: a failure ends in a reschedule or the lease lapsing, losing nothing.
 */
export async function runTurn(
  config: ResolvedTrackerOptions,
  handle: TurnHandle,
  telemetry: Telemetry,
  service: ServiceHealth,
): Promise<void> {
  const { record } = handle;
  const { kind, externalId } = record;
  const turn: TurnContext = {
    config,
    handle,
    telemetry,
    log: (entry) => writeTrackerLog(config.logger, { kind, externalId, ...entry }),
    source: record.event !== undefined ? 'webhook' : 'poll',
    started: monotonic(),
  };
  let read: RecordOf<StatusKind>;
  try {
    read = await readRecord(turn);
  } catch (error) {
    await afterFailedRead(turn, error, service);
    return;
  }
  service.answered();
  service.answeredRead(recordKey(record));
  await quietly(turn.log, () => config.foundKeys.remember(kind, externalId, read));
  const seenAt = handle.storeNow();
  const status = statusOf(kind, read);
  const change = changeOf(turn, read, status);
  const final = isFinal(config, change, turn.log);
  const same = record.handled?.status === status;
  const pace = await paceOf(turn, read);
  turn.log({
    event: 'tracker.read',
    outcome: same ? 'same' : 'changed',
    status,
    previousStatus: record.handled?.status,
    source: turn.source,
    ms: elapsed(turn.started),
  });
  if (same) {
    await endTurn(config, handle, { failures: 0, next: scheduled(config, handle, final, pace) }, status);
    return;
  }
  if (await stillHeld(turn, status)) await handOver(turn, { change, status, final, seenAt, pace, read });
}

async function paceOf(turn: TurnContext, read: RecordOf<StatusKind>): Promise<Pace> {
  const { kind, event } = turn.handle.record;
  const announced = await turn.config.events.announced(kind, read);
  return { announced, nudgeAnswered: event !== undefined && confirmsEvent(event)?.(read) === true };
}

function readRecord(turn: TurnContext): Promise<RecordOf<StatusKind>> {
  const { config, handle, telemetry } = turn;
  const { kind, externalId } = handle.record;
  const options = { timeoutMs: config.readTimeoutMs, signal: handle.controller.signal };
  return trackerRead(telemetry, kind, externalId, async (note) => {
    const record = await readKind(config.client, kind, externalId, options);
    const found = statusOf(kind, record);
    note({ status: found, changed: handle.record.handled?.status !== found });
    return record;
  });
}

async function afterFailedRead(turn: TurnContext, error: unknown, service: ServiceHealth): Promise<void> {
  const { config, handle, log, source, started } = turn;
  const { record } = handle;
  if (handle.controller.signal.aborted) {
    // drain aborted the read: give the record back at once
    await quietly(log, () => withLease(config, handle, 'release', (lease) => config.store.release(lease)));
    return;
  }
  if (isServiceFailure(error)) service.failed();
  else {
    service.answered();
    service.answeredRead(recordKey(record));
  }
  if (isNotFound(error)) {
    log({ event: 'tracker.read', outcome: 'not-found', source, ms: elapsed(started) });
    // a 404 within notFoundForMs is a record not created yet: keep watching
    const lost = record.handled === undefined && handle.storeNow() - record.watchedAt >= config.schedule.notFoundForMs;
    await endTurn(
      config,
      handle,
      { failures: 0, next: lost ? { end: 'not-found' } : scheduled(config, handle, false, UNANNOUNCED) },
      undefined,
    );
    return;
  }
  log({ event: 'tracker.read', outcome: 'failed', source, ms: elapsed(started), error: plainError(error) });
  if (isServiceFailure(error)) {
    // the service's failure, not the record's: no back-off of its own (the tracker holds back as a
    // whole), due again soon so it is read once the service answers; `missed` keeps it overdue
    const missed = service.holdingBack ? 1 : service.missedRead(recordKey(record));
    const normalMs = nextDelayMs(config.schedule, record, handle.storeNow());
    const next = aged(config, handle)
      ? { end: 'max-age' as const }
      : { delayMs: record.failures > 0 ? retryDelayMs(config.schedule, record.failures) : soonDelayMs(config.schedule, missed, normalMs) };
    await endTurn(config, handle, { failures: record.failures, next, missed: true }, undefined);
    // a nudged record stays ahead of the backlog for when the service answers again
    if (record.nudgedAt !== undefined && service.holdingBack && !('end' in next)) {
      await quietly(log, () => config.store.nudge(record.kind, record.externalId, {}));
    }
    return;
  }
  const failures = record.failures + 1;
  const next = aged(config, handle) ? { end: 'max-age' as const } : { delayMs: retryDelayMs(config.schedule, failures) };
  await endTurn(config, handle, { failures, next }, undefined);
}

function changeOf(turn: TurnContext, read: RecordOf<StatusKind>, status: string | null): StatusChange {
  const { record, hold } = turn.handle;
  return withSignal(
    {
      id: changeId(record.kind, record.externalId, record.handled?.at, status),
      kind: record.kind,
      externalId: record.externalId,
      status,
      // left out on a first change: `null` would read as "the status handled before was none"
      ...(record.handled === undefined ? {} : { previousStatus: record.handled.status }),
      record: read,
      source: turn.source,
      ...(record.event === undefined ? {} : { event: record.event }),
    },
    hold.signal,
  ) as StatusChange;
}

/** Extends the lease after the read: a read that outlived it leaves the change to whoever took the record. */
async function stillHeld(turn: TurnContext, status: string | null): Promise<boolean> {
  const { config, handle, log } = turn;
  let held: boolean;
  try {
    const sentAt = monotonic();
    const lease = handle.lease;
    held = await withLease(config, handle, 'extend', () => config.store.extend(lease, { leaseMs: config.leaseMs }));
    if (held) handle.extended(lease, sentAt);
  } catch (error) {
    log({ event: 'tracker.store-failed', status, error: plainError(error) });
    await giveBackSoon(config, handle, status); // read again soon, or once the lease lapses
    return false;
  }
  if (!held) {
    log({
      event: 'tracker.lease-lost',
      status,
      error: { name: 'LeaseLost', message: 'the lease passed to another process during the read; the change is left to it' },
    });
  }
  return held;
}

/** `isFinal`, guarded: one that throws keeps the record watched (ending it could lose a later change). */
function isFinal(config: ResolvedTrackerOptions, change: StatusChange, log: TurnLog): boolean {
  try {
    return config.isFinal(change);
  } catch (error) {
    log({ event: 'tracker.change-failed', status: change.status, error: plainError(error) });
    return false;
  }
}

/** Runs a store step whose failure is only logged (the record's lease then lapses, losing nothing). */
async function quietly(log: TurnLog, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    log({ event: 'tracker.store-failed', error: plainError(error) });
  }
}

function recordKey(record: { kind: string; externalId: string }): string {
  return `${record.kind}:${record.externalId}`;
}
