/**
 * `checkout-partner-sdk/postgres`: webhook deduplication in the partner's own PostgreSQL
 * ({@link PostgresEventStore}), optionally inside the claim's transaction for exactly-once effects.
 *
 * Bring your own driver: node-postgres (`pg` v8, a `Pool`) or postgres.js (`postgres` v3, a `sql`),
 * both optional peer dependencies that this entry never imports.
 *
 * @example
 * import pg from 'pg';
 * import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
 * const store = new PostgresEventStore({ pool: new pg.Pool(), transactional: true });
 * await store.ensureSchema();
 *
 * @module
 */
export { PostgresEventStore } from './event-store.js';
export type { PostgresEventStoreOptions, PostgresTransact } from './event-store.js';
export { PostgresStoreError, PostgresTransactionError } from './errors.js';
export type { PostgresStoreOperation, PostgresTransactionErrorReason } from './errors.js';
export type { PgPoolClientLike, PgPoolLike, PgQueryResult, PostgresJsSqlLike, PostgresJsTransactionLike, PostgresPoolLike, PostgresTransaction } from './driver.js';
