/**
 * `checkout-partner-sdk/postgres`: webhook deduplication ({@link PostgresEventStore}) and the status
 * tracker's records ({@link PostgresStatusStore}) in the partner's own PostgreSQL, each optionally
 * inside its own transaction for exactly-once effects.
 *
 * Bring your own driver: node-postgres (`pg` v8, a `Pool`) or postgres.js (`postgres` v3, a `sql`),
 * both optional peer dependencies that this entry never imports.
 *
 * @example
 * import pg from 'pg';
 * import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
 * const pool = new pg.Pool();
 * pool.on('error', (error) => console.warn('idle PostgreSQL client lost', error.message)); // pg requires it
 * const store = new PostgresEventStore({ pool, transactional: true });
 * await store.ensureSchema();
 *
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
