import { bounded } from './bounded.js';
import type { ResolvedTrackerOptions } from './options.js';
import type { TurnHandle } from './turn-handle.js';
import type { StatusLease } from './types.js';

export { bounded } from './bounded.js';

/**
 * Runs one store operation of the turn under the current lease, bounded by the store time limit
 * (a third of `leaseMs`): a store that never answers is given up (StatusStoreTimeoutError).
 */
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
