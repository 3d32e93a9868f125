import type { LoadHooks } from '../client/load/hooks.js';
import { whenReady } from './hooks.js';
import type { LoadEvent } from './telemetry-core.js';
import type { Telemetry } from './telemetry.js';

const EVENTS = ['queued', 'retryDenied', 'budgetExhausted', 'budgetRestored', 'paused', 'rateChanged'] as const;

/** The observer of a client's load control: its events become metrics and events on the call's span. */
export function loadHooks(telemetry: Telemetry): LoadHooks {
  const hooks: Record<string, (event: LoadEvent) => void> = {};
  for (const name of EVENTS) hooks[name] = (event) => whenReady(telemetry, (core) => core.load(name, event));
  return hooks;
}
