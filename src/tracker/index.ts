/**
 * `checkout-partner-sdk/tracker`: every status change of the partner's orders and withdrawals,
 * handed over once, from polling and provider webhooks together.
 *
 * @example
 * import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
 * const tracker = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: async (change) => { ... } });
 * tracker.start();
 * await tracker.watchOrder('order-42');
 *
 * @module
 */
export { createStatusTracker } from './tracker.js';
export { MemoryStatusStore } from '../stores/memory-status-store.js';
export type { MemoryStatusStoreOptions } from '../stores/memory-status-store.js';
export { StatusStoreFullError } from '../stores/errors.js';
export { StatusStoreTimeoutError } from './errors.js';
export { MAX_TRACKED_EVENT_BYTES, MAX_TRACKED_EVENT_FIELD_BYTES } from '../stores/event-projection.js';
export { NUDGE_PRIORITY_MS } from './types.js';
export type {
  ClaimDueRequest,
  ClaimedStatusRecord,
  OnStatusChange,
  OrderStatusChange,
  StatusChange,
  StatusKind,
  StatusLease,
  StatusNext,
  StatusRecordState,
  StatusScheduleOptions,
  StatusSource,
  StatusStore,
  StatusTracker,
  StatusTrackerOptions,
  StatusTurn,
  TransactionalStatusChange,
  TransactionalStatusStore,
  WatchArguments,
  WatchEndReason,
  WithdrawalStatusChange,
} from './types.js';
