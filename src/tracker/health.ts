import { trackerFailure } from '../telemetry/hooks.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { ClaimLoop } from './claim-loop.js';
import { isFailure, type TrackerLog } from './logger.js';
import type { ResolvedTrackerOptions } from './options.js';
import { bounded } from './store-call.js';
import type { TrackerHealth } from './types.js';

export async function trackerHealth(config: ResolvedTrackerOptions, loop: ClaimLoop, askStore: boolean): Promise<TrackerHealth> {
  const state = loop.state();
  const { store, storeTimeoutMs } = config;
  if (!askStore) {
    const webhooks = { lastEventAt: config.events.localLastEventAt(), foundFirstByRead: config.events.foundFirstByRead };
    return { ...state, overdue: undefined, oldestOverdueMs: undefined, webhooks };
  }
  const [overdue, lastEventAt] = await Promise.all([
    typeof store.overdue === 'function' ? bounded(storeTimeoutMs, 'overdue', store.overdue()) : undefined,
    config.events.lastEventAt(),
  ]);
  return {
    ...state,
    overdue: overdue?.count,
    oldestOverdueMs: overdue === undefined ? undefined : Math.max(0, overdue.oldestMs),
    webhooks: { lastEventAt, foundFirstByRead: config.events.foundFirstByRead },
  };
}

export function countingFailures(log: TrackerLog, telemetry: Telemetry): TrackerLog {
  return (entry) => {
    if (isFailure(entry))
      trackerFailure(telemetry, entry.event === 'tracker.read' ? 'tracker.read-failed' : entry.event, entry.error?.name);
    log?.(entry);
  };
}
