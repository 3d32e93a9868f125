/**
 * One webhook receiver of the soak's PostgreSQL mode (a child process of postgres-run.ts):
 * node:http + createWebhookHandler + a transactional PostgresEventStore on its own pg Pool,
 * confirming each event through the fake service. All from the BUILT package.
 *
 * onEvent inserts the event's effect row through `transaction`, then fails on purpose for
 * SOAK_FAIL_RATE of its calls (so that row must be rolled back), appending `F <eventId>` to SOAK_LOG.
 * SIGTERM: drain(), close, pool.end(), and the process must then exit by itself (nothing left
 * open: no socket, no timer); a watchdog exits 1 when it does not within 25 s. Prints `READY <port>` once listening.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import pg from 'pg';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';
import { PARTNER_ID, PARTNER_SECRET, requiredEnv } from './events.js';

const env = requiredEnv;

const receiver = env('SOAK_RECEIVER');
const port = Number(env('SOAK_PORT'));
const failRate = Number(env('SOAK_FAIL_RATE'));
const log = openSync(env('SOAK_LOG'), 'a');

// the README's pool settings
const pool = new pg.Pool({
  connectionString: env('SOAK_DATABASE_URL'),
  max: 24,
  connectionTimeoutMillis: 2_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
});
pool.on('error', () => undefined); // idle clients lose their session when PostgreSQL restarts; the pool replaces them

const handler = createWebhookHandler({
  secret: env('SOAK_WEBHOOK_SECRET'),
  client: new CheckoutClient({
    baseUrl: env('SOAK_FAKE_URL'),
    partnerId: PARTNER_ID,
    partnerSecret: PARTNER_SECRET,
    timeoutMs: 3000,
    maxRetries: 2,
  }),
  store: new PostgresEventStore({ pool, transactional: true }),
  resolveOrderExternalId: (event) => (typeof event.orderExternalId === 'string' ? event.orderExternalId : undefined),
  resolveWithdrawalExternalId: (event) => (typeof event.withdrawalExternalId === 'string' ? event.withdrawalExternalId : undefined),
  confirm: { attempts: 2, delayMs: 50 },
  responseTimeoutMs: 2500,
  leaseMs: 4000,
  onEvent: async ({ event, confirmed, transaction }) => {
    await transaction.query('INSERT INTO soak_effects (event_id, receiver, pid, confirmed) VALUES ($1, $2, $3, $4)', [
      event.eventId,
      receiver,
      process.pid,
      confirmed,
    ]);
    // the rest of a partner's handler, while the row lock is held
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
    if (Math.random() < failRate) {
      writeSync(log, `F ${event.eventId} ${receiver} ${process.pid}\n`);
      throw new Error('injected onEvent failure');
    }
  },
});

const server = createServer((req, res) => handler.node(req, res));
server.keepAliveTimeout = 2000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`READY ${port}\n`));

process.once('SIGTERM', () => {
  // unref'd: it does not keep the process alive, it only fires when something else does
  // past drain's own 10 s bound and pool.end(): a slow drain on a loaded machine is not a leak;
  // what still holds the process then is named, so a real leak says what it is
  const watchdog = setTimeout(() => {
    process.stderr.write(
      `receiver did not exit by itself within 25 s of SIGTERM; still open: ${process.getActiveResourcesInfo().join(', ')}\n`,
    );
    process.exit(1);
  }, 25_000);
  watchdog.unref();
  void handler.drain({ timeoutMs: 10_000 }).then(async () => {
    server.closeAllConnections();
    server.close();
    await pool.end();
    closeSync(log);
  });
});
