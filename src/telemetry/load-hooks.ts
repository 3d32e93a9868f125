import type { LoadHooks } from '../client/load/hooks.js';
import { whenReady } from './hooks.js';
import type { Telemetry } from './telemetry.js';

/**
 * The observer of a client's load control (`new LoadControl(settings, loadHooks(telemetry))`): queue
 * waits, refused retries, a dry or restored retry budget, `Retry-After` pauses and rate changes become
 * metrics and events on the call's span. Each hook costs one check while OpenTelemetry is off.
 */
export function loadHooks(telemetry: Telemetry): LoadHooks {
  return {
    queued: ({ method, path, waitedMs }) => whenReady(telemetry, (core) => core.queued(waitedMs, method, path)),
    retryDenied: () => whenReady(telemetry, (core) => core.retryDenied()),
    budgetExhausted: () => whenReady(telemetry, (core) => core.budgetExhausted()),
    budgetRestored: () => whenReady(telemetry, (core) => core.budgetRestored()),
    paused: ({ pauseMs }) => whenReady(telemetry, (core) => core.paused(pauseMs)),
    rateChanged: ({ requestsPerSecond }) => whenReady(telemetry, (core) => core.rateChanged(requestsPerSecond)),
  };
}
