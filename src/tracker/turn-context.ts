import type { TrackerLogEntry } from '../logger.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { ResolvedTrackerOptions } from './options.js';
import { monotonic, type TurnHandle } from './turn-handle.js';
import type { StatusSource } from './types.js';

/** Writes a log entry about the turn's record (its kind and externalId filled in). */
export type TurnLog = (entry: Omit<TrackerLogEntry, 'kind' | 'externalId'>) => void;

/** What every step of one record's turn shares. */
export interface TurnContext {
  readonly config: ResolvedTrackerOptions;
  readonly handle: TurnHandle;
  readonly telemetry: Telemetry;
  readonly log: TurnLog;
  /** `webhook` when a provider event nudged the record, else `poll`. */
  readonly source: StatusSource;
  /** When the turn began (monotonic): the read's duration in its log entry. */
  readonly started: number;
}

/** Whole milliseconds since `since` (monotonic), for log entries. */
export function elapsed(since: number): number {
  return Math.round(monotonic() - since);
}
