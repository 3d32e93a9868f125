import type { TrackerLogEntry } from '../logger.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { ResolvedTrackerOptions } from './options.js';
import { monotonic, type TurnHandle } from './turn-handle.js';
import type { StatusSource } from './types.js';

/** Writes a log entry about the turn's record (its kind and externalId filled in). */
export type TurnLog = (entry: Omit<TrackerLogEntry, 'kind' | 'externalId'>) => void;

export interface TurnContext {
  readonly config: ResolvedTrackerOptions;
  readonly handle: TurnHandle;
  readonly telemetry: Telemetry;
  readonly log: TurnLog;
  readonly source: StatusSource;
  readonly started: number;
}

export function elapsed(since: number): number {
  return Math.round(monotonic() - since);
}
