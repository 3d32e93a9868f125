import { bounded } from './bounded.js';
import type { ResolvedTrackerOptions } from './options.js';
import type { TurnHandle } from './turn-handle.js';
import type { StatusLease } from './types.js';

export { bounded } from './bounded.js';

/** One store operation under the current lease, given up past the store time limit. */
export function withLease<T>(
  config: ResolvedTrackerOptions,
  handle: TurnHandle,
  operation: string,
  work: (lease: StatusLease) => Promise<T>,
): Promise<T> {
  const lease = handle.lease;
  handle.sentWith = lease;
  return bounded(config.storeTimeoutMs, operation, work(lease));
}
