import { ignoreFailure } from '../internal/ignore-failure.js';
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

/** Checks the `logger` option. */
export function checkLogger(logger: unknown): TrackerLogger | undefined {
  if (logger === undefined || logger === false) return undefined;
  if (typeof logger === 'function') return logger as TrackerLogger;
  if (logger !== null && typeof logger === 'object' && ['info', 'warn', 'error'].every((level) => typeof (logger as Record<string, unknown>)[level] === 'function')) {
    return logger as TrackerLogger;
  }
  throw new TypeError('logger must be a function, an object with info, warn and error methods (debug optional), or false');
}
