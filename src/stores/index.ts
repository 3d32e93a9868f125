/**
 * `checkout-partner-sdk/stores`: the contracts a store of your own implements (docs/stores.md shows one). The shipped stores come
 * from `checkout-partner-sdk/webhooks`, `/tracker`, `/redis` and `/postgres`.
 * @module
 */
export type {
  ClaimedLease,
  ClaimOptions,
  ClaimResult,
  EventStore,
  TransactionalEventStore,
  TransactOptions,
  TransactResult,
} from './event-store.js';
export { NUDGE_PRIORITY_MS } from './status-store.js';
export type {
  ClaimDueRequest,
  ClaimedStatusRecord,
  KindRecords,
  LastEvent,
  OverdueRecords,
  StatusKind,
  StatusLease,
  StatusNext,
  StatusRecordState,
  StatusStore,
  StatusTurn,
  TransactionalStatusStore,
} from './status-store.js';
export type { StoredToken, TokenStore } from './token-store.js';
export { LeaseLostError } from './errors.js';
