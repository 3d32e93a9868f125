/**
 * One tracker process of the tracker soak (a child of run.ts), from the BUILT package: a
 * `createStatusTracker` on `RedisStatusStore` (shared prefix), and a webhook endpoint
 * (`createWebhookHandler({ tracker })` on `RedisEventStore`) that nudges it. It watches the records
 * assigned to it (index % SOAK_PROCESSES) at their planned times; after a restart it watches again
 * those already due (a watch is idempotent). Each `onChange` appends one line to SOAK_LOG (O_APPEND):
 *   C <kind> <id> <status> <previousStatus|-> <source> <pid> <epoch ms>
 * SIGTERM: drain the handler and the tracker, exit 0. Prints `READY <port> <Date.now()>` once
 * listening. The plan's times and the log's `<epoch ms>` are the true time (`performance.timeOrigin +
 * performance.now()`), not `Date`: one process of the soak has its `Date` offset (CLOCK_SKEW_MS), and
 * only the SDK must cope with that.
 *
 * PostgreSQL mode (SOAK_PG_URL set): a transactional `PostgresStatusStore` and a plain
 * `PostgresEventStore` on one `pg` Pool instead; `onChange` also writes its effect row through
 * `transaction` into SOAK_PG_EFFECTS (no unique key), then the injected failure (after the write,
 * so it must be rolled back). The effect rows are what run.ts checks for exactly-once.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import pg from 'pg';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore, PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { RedisEventStore, RedisStatusStore } from 'checkout-partner-sdk/redis';
import { createStatusTracker, type StatusChange, type StatusTrackerOptions } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler, type EventStore } from 'checkout-partner-sdk/webhooks';
import { EVENT_PREFIX, orderForTrade, PARTNER_ID, PARTNER_SECRET, planRecord, requiredEnv, STATUS_PREFIX } from './plan.js';

const index = Number(requiredEnv('SOAK_INDEX'));
const processes = Number(requiredEnv('SOAK_PROCESSES'));
const records = Number(requiredEnv('SOAK_RECORDS'));
const seed = Number(requiredEnv('SOAK_SEED'));
const epoch = Number(requiredEnv('SOAK_EPOCH'));
const spreadMs = Number(requiredEnv('SOAK_SPREAD_MS'));
const port = Number(requiredEnv('SOAK_PORT'));
const log = openSync(requiredEnv('SOAK_LOG'), 'a');
/** The true time, whatever `Date` says in this process (the soak's skewed member). */
const soakNow = () => performance.timeOrigin + performance.now();
const stats = { reads: 0, storeFailed: 0, leaseLost: 0, changeFailed: 0 };
/** Every tracker log entry, one JSON line each (`t`: the true time), so run.ts can tell a held status's story. */
const trace = openSync(requiredEnv('SOAK_TRACE'), 'a');

const pgUrl = process.env['SOAK_PG_URL'];
const redis = pgUrl === undefined ? new Redis(requiredEnv('SOAK_REDIS_URL'), { maxRetriesPerRequest: 1 }) : undefined;
redis?.on('error', () => undefined);
// settings of the README: a bounded connect, TCP keepalive; an idle session PostgreSQL ended is replaced
const pool =
  pgUrl === undefined ? undefined : new pg.Pool({ connectionString: pgUrl, max: 24, connectionTimeoutMillis: 2_000, keepAlive: true });
pool?.on('error', () => undefined);
const client = new CheckoutClient({
  baseUrl: requiredEnv('SOAK_FAKE_URL'),
  partnerId: PARTNER_ID,
  partnerSecret: PARTNER_SECRET,
  timeoutMs: 5_000,
  maxRetries: 1,
});

const logChange = (change: StatusChange) =>
  writeSync(
    log,
    `C ${change.kind} ${change.externalId} ${change.status} ${change.previousStatus ?? '-'} ${change.source} ${process.pid} ${Math.round(soakNow())}\n`,
  );
const options: Omit<StatusTrackerOptions, 'store' | 'onChange'> = {
  client,
  owner: `p${index}-${process.pid}`,
  leaseMs: 10_000,
  maxConcurrentReads: 16,
  // the soak's checker waits 40 s after the last change for every watch to end, and a fifth of the
  // events is lost: a change whose event was lost is read at the safety pace, kept under that here
  schedule: { safetyIntervalMs: 10_000 },
  logger: (entry) => {
    writeSync(trace, `${JSON.stringify({ t: Math.round(soakNow()), p: index, pid: process.pid, ...entry })}\n`);
    if (entry.event === 'tracker.read') stats.reads += 1;
    else if (entry.event === 'tracker.store-failed') stats.storeFailed += 1;
    else if (entry.event === 'tracker.lease-lost') stats.leaseLost += 1;
    else if (entry.event === 'tracker.change-failed') stats.changeFailed += 1;
  },
};

const effects = process.env['SOAK_PG_EFFECTS'] ?? 'tsoak_effects';
const tracker =
  pool === undefined
    ? createStatusTracker({
        ...options,
        store: new RedisStatusStore({ client: redis!, prefix: STATUS_PREFIX, commandTimeoutMs: 2_000 }),
        // eslint-disable-next-line @typescript-eslint/require-await -- the injected failure is a rejection, as a partner's would be
        onChange: async (change) => {
          // one in 25 calls fails on purpose: the same change must come back, and be recorded once
          if (Math.random() < 0.04) throw new Error('injected onChange failure');
          logChange(change);
        },
      })
    : createStatusTracker({
        ...options,
        store: new PostgresStatusStore({
          pool,
          table: requiredEnv('SOAK_PG_TABLE'),
          transactional: true,
          transactionTimeoutMs: 10_000,
          statementTimeoutMs: 2_000,
        }),
        onChange: async ({ transaction, ...change }) => {
          await transaction.query(
            `INSERT INTO "${effects}" (kind, external_id, status, previous, source, pid, at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
            [
              change.kind,
              change.externalId,
              change.status,
              change.previousStatus ?? '-',
              change.source,
              process.pid,
              Math.round(soakNow()),
            ],
          );
          // a transaction that stays open a little, so the SIGKILL and the restart land inside some
          await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 100)));
          // after the write: the failure must roll it back, and the change come again
          if (Math.random() < 0.04) throw new Error('injected onChange failure');
          logChange(change); // at least once (a SIGKILL before COMMIT repeats it); the rows are the proof
        },
      });

const eventStore: EventStore =
  pool === undefined
    ? new RedisEventStore({ client: redis!, prefix: EVENT_PREFIX, commandTimeoutMs: 2_000 })
    : new PostgresEventStore({ pool, table: `${requiredEnv('SOAK_PG_TABLE')}_events`, statementTimeoutMs: 2_000 });

const handler = createWebhookHandler({
  secret: requiredEnv('SOAK_WEBHOOK_SECRET'),
  client,
  tracker,
  store: eventStore,
  resolveOrderExternalId: (event) => orderForTrade(event.tradeId) ?? (typeof event.endUserId === 'string' ? event.endUserId : undefined),
  resolveWithdrawalExternalId: (event) => (typeof event['withdrawalExternalId'] === 'string' ? event['withdrawalExternalId'] : undefined),
  logger: () => undefined,
});

const timers: ReturnType<typeof setTimeout>[] = [];
const watch = async (i: number): Promise<void> => {
  const plan = planRecord(i, seed, spreadMs);
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await (plan.kind === 'order' ? tracker.watchOrder(plan.externalId) : tracker.watchWithdrawal(plan.externalId));
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200)); // the store restarting: try again
    }
  }
  process.stderr.write(`could not watch ${plan.externalId}\n`);
};
for (let i = index; i < records; i += processes) {
  timers.push(setTimeout(() => void watch(i), Math.max(0, epoch + planRecord(i, seed, spreadMs).watchAtMs - soakNow())));
}

tracker.start();
const server = createServer((req, res) => handler.node(req, res));
server.keepAliveTimeout = 2000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`READY ${port} ${Date.now()}\n`));

process.once('SIGTERM', () => {
  for (const timer of timers) clearTimeout(timer);
  const watchdog = setTimeout(() => process.exit(1), 15_000);
  void Promise.all([handler.drain({ timeoutMs: 5_000 }), tracker.drain({ timeoutMs: 5_000 })]).then(() => {
    process.stdout.write(`STATS ${JSON.stringify(stats)}\n`);
    server.closeAllConnections();
    server.close();
    redis?.disconnect();
    void pool?.end();
    closeSync(log);
    closeSync(trace);
    clearTimeout(watchdog);
    process.exit(0);
  });
});
