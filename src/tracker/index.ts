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
export { MemoryStatusStore } from './memory-store.js';
export { StatusStoreFullError, StatusStoreTimeoutError } from './errors.js';
export { MAX_TRACKED_EVENT_BYTES } from './event-projection.js';
export { NUDGE_PRIORITY_MS } from './types.js';
export type {
  ClaimDueRequest,
  ClaimedStatusRecord,
  OrderStatusChange,
  StatusChange,
  StatusLease,
  StatusNext,
  StatusRecordState,
  StatusScheduleOptions,
  StatusStore,
  StatusTracker,
  StatusTrackerOptions,
  StatusTurn,
  TransactionalStatusChange,
  TransactionalStatusStore,
  WithdrawalStatusChange,
} from './types.js';
