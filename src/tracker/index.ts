/**
 * `checkout-partner-sdk/tracker`: each status change of the partner's records, handed over once, from polls and webhooks together.
 * @module
 */
export { createStatusTracker } from './tracker.js';
export { MemoryStatusStore } from '../stores/memory-status-store.js';
export { StatusStoreFullError } from '../stores/errors.js';
export { StatusStoreTimeoutError } from './errors.js';
export { MAX_TRACKED_EVENT_BYTES } from '../stores/event-projection.js';
export type { MemoryStatusStoreOptions } from '../stores/memory-status-store.js';
export type { StatusSource, WatchEndReason } from './kinds.js';
export { isFinalStatus, isSuccessStatus } from '../kinds.js';
export type { KindRecords, RecordOf, StatusKind } from '../kinds.js';
export type {
  KindStatusChange,
  KindWatches,
  OnStatusChange,
  OrderStatusChange,
  RecordRef,
  StatusChange,
  StatusChangesByKind,
  StatusChangeBase,
  StatusScheduleOptions,
  StatusStore,
  StatusTracker,
  StatusTrackerOptions,
  TrackerHealth,
  TrackerHealthOptions,
  TransactionalStatusChange,
  WatchArguments,
  WithdrawalStatusChange,
} from './types.js';
