import { expectTypeOf, test } from 'vitest';
import type pg from 'pg';
import type postgres from 'postgres';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { createStatusTracker, type StatusChange } from 'checkout-partner-sdk/tracker';

declare const pool: pg.Pool;
declare const sql: postgres.Sql;
declare const client: CheckoutClient;

test('a transactional PostgresStatusStore hands onChange the pg PoolClient', () => {
  createStatusTracker({
    client,
    store: new PostgresStatusStore({ pool, transactional: true }),
    onChange: async ({ transaction, externalId, id }) => {
      expectTypeOf(transaction).toEqualTypeOf<pg.PoolClient>();
      expectTypeOf(externalId).toBeString();
      expectTypeOf(id).toEqualTypeOf<string>();
    },
  });
});

test('postgres.js is refused in transactional mode; a plain store hands onChange no transaction', () => {
  // @ts-expect-error transactional mode needs a pg Pool
  new PostgresStatusStore({ pool: sql, transactional: true });
  for (const store of [new PostgresStatusStore({ pool: sql }), new PostgresStatusStore({ pool })]) {
    createStatusTracker({
      client,
      store,
      onChange: (change) => {
        expectTypeOf(change).toEqualTypeOf<StatusChange>();
        // no transaction without a transactional store
        expectTypeOf(change).not.toHaveProperty('transaction');
      },
    });
  }
});

test('watch takes the partner transaction (a pg PoolClient) on a transactional store only', async () => {
  const client = await pool.connect();
  await new PostgresStatusStore({ pool, transactional: true }).watch('order', 'o-1', { transaction: client });
  // @ts-expect-error a plain store writes no watch through the partner's transaction
  await new PostgresStatusStore({ pool }).watch('order', 'o-1', { transaction: client });
  await new PostgresStatusStore({ pool }).watch('order', 'o-1');
  expectTypeOf(new PostgresStatusStore({ pool }).reclaim).returns.resolves.toBeNumber();
});
