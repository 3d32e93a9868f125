import { ignoreFailure } from '../internal/ignore-failure.js';
import { quote } from '../internal/quote.js';
import { debugLogging, describeLineError, RepeatLimiter, stderrLine } from '../internal/stderr-log.js';
import type { TrackerLogEntry, TrackerLogger } from './types.js';

const LEVEL: Readonly<Record<TrackerLogEntry['type'], 'debug' | 'info' | 'warn' | 'error'>> = {
  read: 'debug',
  change: 'info',
  ended: 'info',
  'give-up': 'warn',
  'lease-lost': 'warn',
  'change-failed': 'error',
  'store-failed': 'error',
};

/** Writes `entry`; a logger that throws (or rejects) never changes what the tracker does. */
export function writeTrackerLog(logger: TrackerLogger | undefined, entry: TrackerLogEntry): void {
  if (logger === undefined) return;
  ignoreFailure(() => {
    if (typeof logger === 'function') return logger(entry);
    const level = LEVEL[entry.type];
    const write = logger[level];
    return typeof write === 'function' ? write.call(logger, entry) : undefined;
  });
}

/** An error as a plain object a log line can hold: `name`, `message`, and `status` when it has one. */
export function plainError(error: unknown): { name: string; message: string; status?: number } {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    return typeof status === 'number' ? { name: error.name, message: error.message, status } : { name: error.name, message: error.message };
  }
  return { name: 'Error', message: String(error) };
}

/**
 * One minute: a failure that repeats (a store down, a read of one record failing at each retry)
 * writes one stderr line per minute, the next one counting those held back. A minute keeps an
 * outage visible in any log without burying it (the handler's per-delivery lines need no limit:
 * the provider's retries are minutes apart).
 */
export const REPEAT_WINDOW_MS = 60_000;

/** Whether an entry reports a failure: what the default logger writes to stderr. */
function isFailure(entry: TrackerLogEntry): boolean {
  return entry.type === 'change-failed' || entry.type === 'store-failed' || entry.type === 'lease-lost' || entry.type === 'give-up' || entry.outcome === 'failed';
}

/**
 * The logger used when the `logger` option is absent: one stderr line per failure (`onChange` threw,
 * a read failed after the client's retries, a store operation failed, a lease lost, a watch given up
 * at `maxAgeMs` or `notFoundForMs`), the same failure at most once per {@link REPEAT_WINDOW_MS} on
 * the monotonic clock, so a wall-clock step never silences it (a store failure is one failure
 * whatever the record; any other, per record); with `CHECKOUT_LOG=debug`, every entry.
 */
export function stderrTrackerLogger(now: () => number = () => performance.now()): (entry: TrackerLogEntry) => void {
  const every = debugLogging();
  const limiter = new RepeatLimiter(REPEAT_WINDOW_MS, now);
  return (entry) => {
    if (every) {
      stderrLine(trackerLogLine(entry, 0));
      return;
    }
    if (!isFailure(entry)) return;
    const record = entry.type === 'store-failed' ? '' : `${entry.kind ?? ''}:${entry.externalId ?? ''}`;
    const held = limiter.pass(`${entry.type}\u0000${record}\u0000${entry.error?.name ?? ''}\u0000${entry.error?.message ?? ''}`);
    if (held !== undefined) stderrLine(trackerLogLine(entry, held));
  };
}

/**
 * One line for stderr: `checkout-partner-sdk tracker <type> kind=… externalId="…" status="…" … error=Name "message"`.
 * Every value from outside is quoted with its control characters escaped (so an id, a status or a
 * message cannot forge another line); never a secret or a record's body. `held`: lines of the same
 * failure held back since the last one written.
 */
export function trackerLogLine(entry: TrackerLogEntry, held: number): string {
  const parts = [`checkout-partner-sdk tracker ${entry.type}`];
  if (entry.outcome !== undefined) parts.push(`outcome=${entry.outcome}`);
  if (entry.type === 'give-up' && entry.reason !== undefined) parts.push(`reason=${entry.reason}`);
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

/** Checks the `logger` option: `false` is none, absent is {@link stderrTrackerLogger}. */
export function checkLogger(logger: unknown): TrackerLogger | undefined {
  if (logger === false) return undefined;
  if (logger === undefined) return stderrTrackerLogger();
  if (typeof logger === 'function') return logger as TrackerLogger;
  if (logger !== null && typeof logger === 'object' && ['info', 'warn', 'error'].every((level) => typeof (logger as Record<string, unknown>)[level] === 'function')) {
    return logger as TrackerLogger;
  }
  throw new TypeError('logger must be a function, an object with info, warn and error methods (debug optional), or false');
}
