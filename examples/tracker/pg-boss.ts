// An effect outside your database (a warehouse API call), performed once per paid order: onChange
// enqueues a pg-boss job in the tracker's own transaction, so the job exists exactly when the
// change commits; pg-boss runs it, retrying until the warehouse answers, with change.id as the job
// id and the Idempotency-Key. docs/outside-effects.md explains it; a test runs two of these
// workers with a lossy provider and SIGKILLs inside onChange.
// Run: npx tsx examples/tracker/pg-boss.ts
// Env: DATABASE_URL, CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET,
// WEBHOOK_SIGNING_SECRET, WAREHOUSE_URL, PORT, HOSTNAME.
import { createServer } from 'node:http';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore, PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { createStatusTracker } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000 });
pool.on('error', (error) => console.warn('idle PostgreSQL client lost', error.message)); // required by pg
const records = new PostgresStatusStore({ pool, transactional: true });
const events = new PostgresEventStore({ pool });
await records.ensureSchema();
await events.ensureSchema();

const boss = new PgBoss(process.env.DATABASE_URL!);
boss.on('error', (error) => console.warn('pg-boss', error.message));
await boss.start(); // creates its schema on first start
// a worker killed mid-job: its job expires (expireInSeconds) and runs again, under the same key
await boss.createQueue('ship-order', { retryLimit: 20, retryDelay: 1, retryBackoff: true, retryDelayMax: 60, expireInSeconds: 60 });

const client = new CheckoutClient(); // CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
const tracker = createStatusTracker({
  client,
  store: records,
  owner: process.env.HOSTNAME, // stable per process slot: a restart takes back its own leases
  onChange: async (change) => {
    if (change.kind !== 'order' || change.status !== 'Settled') return;
    // the job's INSERT runs in the tracker's transaction; the same change is the same job id
    const db = { executeSql: (text: string, values?: unknown[]) => change.transaction.query(text, values) };
    await boss.send('ship-order', { orderId: change.externalId }, { id: change.id, db });
  },
});

await boss.work<{ orderId: string }>('ship-order', async ([job]) => {
  const response = await fetch(`${process.env.WAREHOUSE_URL}/shipments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': job!.id }, // change.id
    body: JSON.stringify({ orderId: job!.data.orderId }),
    signal: job!.signal,
  });
  if (!response.ok) throw new Error(`warehouse answered ${response.status}`); // pg-boss retries it
});
tracker.start();

// each event asks the tracker to read its order now; without a lookup of yours by tradeId, the
// tracker's own reads find the order
const orderOfTrade = new Map<string, string>();
const handler = createWebhookHandler({
  secret: process.env.WEBHOOK_SIGNING_SECRET!,
  client,
  store: events,
  tracker,
  resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? orderOfTrade.get(event.tradeId) : undefined),
});
const server = createServer((req, res) => handler.node(req, res)).listen(Number(process.env.PORT ?? 3000));

// SIGTERM comes after the platform's pre-stop wait; 25 s at most, within a 30 s grace period
async function shutdown(): Promise<void> {
  await handler.drain(); // 10 s at most
  await tracker.drain(); // 10 s at most: no onChange enqueues after it
  await boss.stop({ timeout: 5_000 }); // the jobs in hand finish (or run again elsewhere, same key)
  await new Promise((resolve) => server.close(resolve));
  await pool.end();
}
process.once('SIGTERM', () => void shutdown());
