// A status tracker on PostgreSQL whose writes commit with each status change, exactly once.
// Run: npx tsx examples/tracker/postgres.ts
// Env: DATABASE_URL, CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET.
import pg from 'pg';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { createStatusTracker } from 'checkout-partner-sdk/tracker';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000, keepAlive: true });
pool.on('error', (error) => console.warn('idle PostgreSQL client lost', error.message)); // required by pg
const store = new PostgresStatusStore({ pool, transactional: true });
await store.ensureSchema(); // or put store.schemaSql in your migrations, with your own tables:
await pool.query('CREATE TABLE IF NOT EXISTS fulfilments (change_id uuid PRIMARY KEY, order_id text NOT NULL, status text)');

const tracker = createStatusTracker({
  client: new CheckoutClient(),
  store,
  onChange: async ({ id, externalId, status, transaction }) => {
    // commits with the record's new status; throw to have the change handed over again
    await transaction.query('INSERT INTO fulfilments (change_id, order_id, status) VALUES ($1, $2, $3)', [id, externalId, status]);
  },
});
tracker.start();
await tracker.watchOrder('order-42');

process.once('SIGTERM', () => void tracker.drain().then(() => pool.end()));
