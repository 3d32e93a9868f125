/**
 * `checkout-partner-sdk/postgres`: webhook dedupe ({@link PostgresEventStore}) and tracker records ({@link PostgresStatusStore})
 * in your PostgreSQL, on your `pg` (v8) or postgres.js (v3) driver; with `pg`, optionally in a transaction for exactly-once effects.
 * @module
 */
export { PostgresEventStore } from './event-store.js';
export type { PostgresEventStoreOptions } from './event-store.js';
export { PostgresStatusStore } from './status-store.js';
export type { PostgresStatusStoreOptions } from './status-store.js';
export { PostgresStoreError, PostgresTransactionError } from './errors.js';
export type { PostgresJsSqlLike, PostgresJsTransactionLike, PostgresPoolLike, PostgresTransaction } from './driver.js';
export type { PostgresStoreOperation, PostgresTransactionErrorReason } from './errors.js';
export type { PgPoolClientLike, PgQueryResult } from './pg-types.js';
export type { PostgresTransact } from './event-store.js';
export type { PostgresStatusTransact } from './status-store.js';
