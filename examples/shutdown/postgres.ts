import { createServer } from 'node:http';
import pg from 'pg';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore, PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { createStatusTracker } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';

async function markPaid(orderExternalId: string): Promise<void> {
  console.log(`paid ${orderExternalId}`); // your fulfilment, keyed by the order
}

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000 });
pool.on('error', (error) => console.warn('idle PostgreSQL client lost', error.message)); // required by pg
const events = new PostgresEventStore({ pool });
const records = new PostgresStatusStore({ pool });
await events.ensureSchema(); // or their schemaSql in your migrations
await records.ensureSchema();

const orderOfTrade = new Map([['t-7', 'order-42']]); // your lookup: which order a trade paid
const client = new CheckoutClient(); // CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
const tracker = createStatusTracker({
  client,
  store: records,
  owner: process.env.HOSTNAME, // stable per process slot (a pod name): a restart takes back its own leases
  onChange: async (change) => {
    if (change.kind === 'order' && change.status === 'Settled') await markPaid(change.externalId);
  },
});
tracker.start();
await tracker.watchOrder('order-42');

const handler = createWebhookHandler({
  secret: process.env.WEBHOOK_SIGNING_SECRET!,
  client,
  store: events,
  tracker,
  resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? orderOfTrade.get(event.tradeId) : undefined),
});
const server = createServer((req, res) => handler.node(req, res)).listen(Number(process.env.PORT ?? 3000));

// SIGTERM comes after the platform's pre-stop wait (webhooks.md#graceful-shutdown)
async function shutdown(): Promise<void> {
  await handler.drain(); // 10 s at most
  await tracker.drain(); // 10 s at most
  await new Promise((resolve) => server.close(resolve));
  await pool.end(); // last: the stores are done with it, and an open pool keeps the process alive
}
process.once('SIGTERM', () => void shutdown());
