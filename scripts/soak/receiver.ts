/**
 * One webhook receiver of the soak (a child process of run.ts): node:http + createWebhookHandler +
 * RedisEventStore (its own ioredis connection; the prefix is shared by all receivers), confirming
 * each event through a CheckoutClient against the fake service. All from the BUILT package.
 *
 * onEvent fails on purpose for SOAK_FAIL_RATE of its calls; every other call appends one line
 * to SOAK_LOG (opened O_APPEND, one write per line), then works on for up to 20 ms
 * (SOAK_ONEVENT_TAIL_MS) like a real handler after its main side effect:
 *   H <eventId> <receiver> <pid> <epoch ms> <confirmed>     a handled event
 *   F <eventId> <receiver> <pid> <epoch ms>                 an injected onEvent failure
 *   C <eventId> <receiver> <pid> <epoch ms>                 handled, but the store's complete() failed
 *
 * SIGTERM: drain() (new deliveries get 503), close the server, quit Redis, exit 0 (exit 1 if the
 * drain takes over 15 s). Prints `READY <port>` once listening.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { CheckoutClient, type LogEntry } from 'checkout-partner-sdk';
import { RedisEventStore } from 'checkout-partner-sdk/redis';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';
import { PARTNER_ID, PARTNER_SECRET, PREFIX, requiredEnv } from './events.js';

type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;
type WebhookWarning = Extract<LogEntry, { event: 'webhook.warning' }>;

const env = requiredEnv;

const receiver = env('SOAK_RECEIVER');
const port = Number(env('SOAK_PORT'));
const failRate = Number(env('SOAK_FAIL_RATE'));
const tailMs = Number(process.env.SOAK_ONEVENT_TAIL_MS ?? 20);
const log = openSync(env('SOAK_LOG'), 'a'); // O_APPEND: lines of concurrent writers never interleave
const line = (text: string) => writeSync(log, `${text}\n`);

const redis = new Redis(env('SOAK_REDIS_URL'), { maxRetriesPerRequest: 1 }); // the documented fail-fast setting
redis.on('error', () => undefined); // reconnects by itself; failures reach the store as RedisStoreError

const handler = createWebhookHandler({
  secret: env('SOAK_WEBHOOK_SECRET'),
  client: new CheckoutClient({
    baseUrl: env('SOAK_FAKE_URL'),
    partnerId: PARTNER_ID,
    partnerSecret: PARTNER_SECRET,
    timeoutMs: 3000,
    maxRetries: 2,
  }),
  store: new RedisEventStore({ client: redis, prefix: PREFIX, commandTimeoutMs: 2000 }),
  resolveOrderExternalId: (event) => (typeof event.orderExternalId === 'string' ? event.orderExternalId : undefined),
  resolveWithdrawalExternalId: (event) => (typeof event.withdrawalExternalId === 'string' ? event.withdrawalExternalId : undefined),
  confirm: { attempts: 2, delayMs: 50 },
  responseTimeoutMs: 2500,
  leaseMs: Number(process.env.SOAK_LEASE_MS ?? 4000),
  onEvent: async ({ event, confirmed }) => {
    if (Math.random() < failRate) {
      line(`F ${event.eventId} ${receiver} ${process.pid} ${Date.now()}`);
      throw new Error('injected onEvent failure');
    }
    line(`H ${event.eventId} ${receiver} ${process.pid} ${Date.now()} ${confirmed}`);
    // the rest of a partner's handler (a notification, a cache update) after its main side effect
    await new Promise((resolve) => setTimeout(resolve, Math.random() * tailMs));
  },
  logger: (entry: WebhookLogEntry | WebhookWarning) => {
    if (entry.event === 'webhook.delivery' && entry.outcome === 'handled' && entry.error !== undefined)
      line(`C ${entry.eventId} ${receiver} ${process.pid} ${Date.now()}`);
  },
});

const server = createServer((req, res) => handler.node(req, res));
server.keepAliveTimeout = 2000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`READY ${port}\n`));

process.once('SIGTERM', () => {
  const watchdog = setTimeout(() => {
    process.stderr.write(`receiver ${receiver}: drain did not finish within 15 s\n`);
    process.exit(1);
  }, 15_000);
  // drain's own bound under the watchdog's, so a drain that gives up at its bound still exits 0
  void handler.drain({ timeoutMs: 10_000 }).then(() => {
    server.closeAllConnections();
    server.close();
    redis.disconnect();
    closeSync(log);
    clearTimeout(watchdog);
    process.stdout.write(`DRAINED ${receiver}\n`);
    process.exit(0);
  });
});
