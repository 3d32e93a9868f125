import { resolveLogger, type LogLevel, type LogWrite } from '../internal/log.js';
import { quote } from '../internal/quote.js';
import { debugLogging, describeLineError, jsonLine, lineFormat, RepeatLimiter, stderrLine } from '../internal/stderr-log.js';
import type { TrackerLogEntry } from '../logger.js';

export { plainError } from '../internal/log.js';

const LEVEL: Readonly<Record<TrackerLogEntry['event'], LogLevel>> = {
  'tracker.read': 'debug',
  'tracker.change': 'info',
  'tracker.ended': 'info',
  'tracker.give-up': 'warn',
  'tracker.lease-lost': 'warn',
  'tracker.change-failed': 'error',
  'tracker.store-failed': 'error',
};

function levelOf(entry: TrackerLogEntry): LogLevel {
  return entry.event === 'tracker.read' && entry.outcome === 'failed' ? 'warn' : LEVEL[entry.event];
}

/** The tracker's writer: a guarded partner logger, nothing, or the stderr default. */
export type TrackerLog = LogWrite<TrackerLogEntry> | undefined;

/** Writes `entry`; a logger that throws (or rejects) never changes what the tracker does. */
export function writeTrackerLog(log: TrackerLog, entry: TrackerLogEntry): void {
  log?.(entry);
}

/** A failure that repeats writes one stderr line per window, the next one counting those held back. */
export const REPEAT_WINDOW_MS = 60_000;

export function isFailure(entry: TrackerLogEntry): boolean {
  return levelOf(entry) !== 'debug' && levelOf(entry) !== 'info';
}

/**
 * The default logger: one stderr line per failure, the same one at most once per {@link REPEAT_WINDOW_MS}
 * on the monotonic clock (a wall-clock step never silences it); every entry with `CHECKOUT_LOG=debug`.
 */
export function stderrTrackerLogger(now: () => number = () => performance.now()): (entry: TrackerLogEntry) => void {
  const every = debugLogging();
  const json = lineFormat() === 'json';
  const line = (entry: TrackerLogEntry, held: number) =>
    json ? jsonLine(levelOf(entry), entry, held > 0 ? { held } : undefined) : trackerLogLine(entry, held);
  const limiter = new RepeatLimiter(REPEAT_WINDOW_MS, now);
  return (entry) => {
    if (every) {
      stderrLine(line(entry, 0));
      return;
    }
    if (!isFailure(entry)) return;
    const held = limiter.pass(repeatKey(entry));
    if (held !== undefined) stderrLine(line(entry, held));
  };
}

/** Failures alike: a failed read by its error's name and status (an outage is one), a store failure by its error, others per record. */
function repeatKey(entry: TrackerLogEntry): string {
  const { event, error } = entry;
  if (event === 'tracker.read') return `${event}\u0000${error?.name ?? ''}\u0000${error?.status ?? ''}`;
  const record = event === 'tracker.store-failed' ? '' : `${entry.kind ?? ''}:${entry.externalId ?? ''}`;
  return `${event}\u0000${record}\u0000${error?.name ?? ''}\u0000${error?.message ?? ''}`;
}

/** One stderr line: values from outside quoted and escaped, so none can forge another line; never a record's body. */
export function trackerLogLine(entry: TrackerLogEntry, held: number): string {
  const parts = [`checkout-partner-sdk tracker ${entry.event.slice('tracker.'.length)}`];
  if (entry.outcome !== undefined) parts.push(`outcome=${entry.outcome}`);
  if (entry.event === 'tracker.give-up' && entry.reason !== undefined) parts.push(`reason=${entry.reason}`);
  if (entry.kind !== undefined) parts.push(`kind=${entry.kind}`);
  if (entry.externalId !== undefined) parts.push(`externalId=${quote(entry.externalId)}`);
  if (entry.status !== undefined) parts.push(`status=${quote(entry.status)}`);
  if (entry.previousStatus !== undefined) parts.push(`previousStatus=${quote(entry.previousStatus)}`);
  if (entry.source !== undefined) parts.push(`source=${entry.source}`);
  if (entry.ms !== undefined) parts.push(`ms=${Math.round(entry.ms)}`);
  if (entry.error !== undefined) parts.push(`error=${describeLineError(entry.error)}`);
  if (held > 0) parts.push(`(${held} more like it in the last minute)`);
  return parts.join(' ');
}

export function trackerLog(logger: unknown): TrackerLog {
  return resolveLogger<TrackerLogEntry>('logger', logger, { level: levelOf, fallback: () => stderrTrackerLogger() });
}
