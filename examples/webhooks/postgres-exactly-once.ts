// Exactly-once effects: each settled trade is recorded once, even when the process is killed
// mid-event or the provider redelivers, because the record and the event's "done" mark commit in
// one PostgreSQL transaction.
// Run: npx tsx examples/webhooks/postgres-exactly-once.ts
// Env: DATABASE_URL, CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET,
// WEBHOOK_SIGNING_SECRET (comma-separated while rotating), PORT.
import { createServer as createHttpServer, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import type { StatusReader } from 'checkout-partner-sdk';
import { createWebhookHandler, type WebhookHandler } from 'checkout-partner-sdk/webhooks';

/** Creates the store's table and this example's own tables (a real app does this in its migrations). */
export async function migrate(pool: pg.Pool): Promise<void> {
  await new PostgresEventStore({ pool }).ensureSchema();
  await pool.query(`CREATE TABLE IF NOT EXISTS settled_trades (
    trade_id   text PRIMARY KEY,
    event_id   text NOT NULL,
    order_id   text NOT NULL,
    settled_at timestamptz NOT NULL DEFAULT now())`);
  // an outbox: the email is queued in the same transaction, and a separate worker sends it
  await pool.query(`CREATE TABLE IF NOT EXISTS email_outbox (
    id      bigserial PRIMARY KEY,
    subject text NOT NULL,
    sent_at timestamptz)`);
}

/** A server that answers POST /webhooks, recording each confirmed settlement exactly once. */
export function createServer(options: { pool: pg.Pool; client: StatusReader; secret: string | string[] }): {
  server: Server;
  handler: WebhookHandler;
} {
  const handler = createWebhookHandler({
    secret: options.secret,
    client: options.client,
    store: new PostgresEventStore({ pool: options.pool, transactional: true }),
    // your own lookup: which order did this trade pay for?
    resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-of-${event.tradeId}` : undefined),
    onEvent: async ({ event, order, confirmed, transaction }) => {
      if (event.type !== 'otc.trade.settled' || !confirmed || order === undefined) return;
      // `transaction` is a pg PoolClient inside BEGIN: these writes commit with the "done" mark, or not at all
      await transaction.query('INSERT INTO settled_trades (trade_id, event_id, order_id) VALUES ($1, $2, $3)', [
        String(event.tradeId),
        event.eventId,
        order.externalId,
      ]);
      await transaction.query('INSERT INTO email_outbox (subject) VALUES ($1)', [`Order ${order.externalId} is paid`]);
      // not here: sending the email itself, or calling another service. Those are not rolled back,
      // so they would happen again on a redelivery (at-least-once).
    },
  });
  const server = createHttpServer((req, res) => {
    if (req.method === 'POST' && req.url === '/webhooks') {
      handler.node(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  return { server, handler };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000 });
  // required by pg: an idle client whose session ends (a restart, a failover) is reported here; without a listener the process crashes
  pool.on('error', (error) => console.error('idle PostgreSQL client lost:', error.message));
  await migrate(pool);
  const { server, handler } = createServer({
    pool,
    client: new CheckoutClient(), // reads CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
    secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
  });
  server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => console.log('listening on', server.address()));
  process.once('SIGTERM', () => {
    // finish (commit or roll back) the transactions in hand, then stop
    void handler.drain().then(() => server.close(() => void pool.end()));
  });
}
