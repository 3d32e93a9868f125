/**
 * `checkout-partner-sdk/stores`: for those who write a store of their own. A partner calling the
 * SDK needs nothing from here: the shipped stores come from `checkout-partner-sdk/webhooks`
 * (`MemoryEventStore`), `checkout-partner-sdk/tracker` (`MemoryStatusStore`),
 * `checkout-partner-sdk/redis` and `checkout-partner-sdk/postgres`.
 *
 * Here are the contracts a store implements, and what they name:
 * - {@link EventStore} (and {@link TransactionalEventStore}): where the webhook handler records the
 *   events it handled. A claim may carry a lease ({@link ClaimedLease}) handed back to `complete`
 *   and `release`; a `complete` whose lease ran out, the event claimed again since, rejects (a store
 *   of your own may use {@link LeaseLostError}, as `MemoryEventStore` does). A store without leases
 *   answers a plain `"claimed"` and gets `complete(eventId)` / `release(eventId)`.
 * - {@link StatusStore} (and {@link TransactionalStatusStore}): where a status tracker keeps its
 *   records, their schedule and their leases.
 * - {@link TokenStore}: where `CheckoutClient` keeps its access token.
 *
 * @example
 * import type { ClaimResult, EventStore } from 'checkout-partner-sdk/stores';
 * class MyEventStore implements EventStore {
 *   async claim(eventId: string, leaseMs: number): Promise<ClaimResult> { ... }
 *   async complete(eventId: string, lease?: unknown): Promise<void> { ... }
 *   async release(eventId: string, lease?: unknown): Promise<void> { ... }
 * }
 *
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
