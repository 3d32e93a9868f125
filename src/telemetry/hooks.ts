import type { ChangeFacts, ReadFacts, RecordKind, TelemetryCore, WatchedCounts } from './telemetry-core.js';
import type { Telemetry } from './telemetry.js';

// The status tracker's calls (load control's are in load-hooks.ts). While the implementation loads,
// at the first use, a recording (not a span) may land a moment after the call.

/** A status change was seen `ms` milliseconds after the read that saw it was due. */
export function trackerLag(telemetry: Telemetry, ms: number, kind: RecordKind, source: 'poll' | 'webhook'): void {
  whenReady(telemetry, (core) => core.trackerLag(ms, kind, source));
}

/** Runs one read of a watched record inside a `checkout.tracker.read` span; `work` may `note` the status it found and whether it changed. */
export async function trackerRead<T>(
  telemetry: Telemetry,
  kind: RecordKind,
  externalId: string,
  work: (note: (facts: ReadFacts) => void) => Promise<T>,
): Promise<T> {
  const use = telemetry.use();
  const core = use instanceof Promise ? await use : use;
  return core === undefined ? work(ignore) : core.trackerRead(kind, externalId, work);
}

/** Runs `onChange` for one status change inside a `checkout.tracker.change` span. */
export async function statusChange<T>(telemetry: Telemetry, change: ChangeFacts, work: () => Promise<T>): Promise<T> {
  const use = telemetry.use();
  const core = use instanceof Promise ? await use : use;
  return core === undefined ? work() : core.statusChange(change, work);
}

/** Reports the watched records at each metrics collection (start OpenTelemetry first); returns the function that stops it. */
export function watchedRecords(telemetry: Telemetry, count: () => WatchedCounts | Promise<WatchedCounts>): () => void {
  let stop: (() => void) | undefined;
  let stopped = false;
  whenReady(telemetry, (core) => {
    if (!stopped) stop = core.watchedRecords(count);
  });
  return () => {
    stopped = true;
    stop?.();
  };
}

/** Reports the store's overdue records at each collection, as {@link watchedRecords} does. */
export function overdueRecords(telemetry: Telemetry, query: () => Promise<{ count: number; oldestMs: number }>): () => void {
  let stop: (() => void) | undefined;
  let stopped = false;
  whenReady(telemetry, (core) => {
    if (!stopped) stop = core.overdueRecords(query);
  });
  return () => {
    stopped = true;
    stop?.();
  };
}

/** Counts one tracker failure (`checkout.tracker.failures`), by what failed and the error's name. */
export function trackerFailure(telemetry: Telemetry, failure: string, errorName: string | undefined): void {
  whenReady(telemetry, (core) => core.trackerFailure(failure, errorName));
}

/** Counts one callback whose work was given up (`checkout.handling.abandoned`). */
export function handlingAbandoned(telemetry: Telemetry, callback: 'onEvent' | 'onChange', reason: string): void {
  whenReady(telemetry, (core) => core.handlingAbandoned(callback, reason));
}

/** Counts one announced status change that a poll read found before its event (`checkout.tracker.found_first_by_read`). */
export function foundFirstByRead(telemetry: Telemetry, kind: RecordKind): void {
  whenReady(telemetry, (core) => core.foundFirstByRead(kind));
}

/** Runs `act` with the implementation when something may emit: at once, or once it has loaded. */
export function whenReady(telemetry: Telemetry, act: (core: TelemetryCore) => void): void {
  const use = telemetry.use();
  if (use === undefined) return;
  if (use instanceof Promise) void use.then((core) => core && act(core));
  else act(use);
}

const ignore = (): void => undefined;
