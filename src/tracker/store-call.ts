import { StatusStoreTimeoutError } from './errors.js';
import type { ResolvedTrackerOptions } from './options.js';
import type { TurnHandle } from './turn-handle.js';
import type { StatusLease } from './types.js';

/** `work`, or a StatusStoreTimeoutError once `ms` pass without its answer (its late answer is then ignored). */
export function bounded<T>(ms: number, operation: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StatusStoreTimeoutError(operation, ms)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

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
