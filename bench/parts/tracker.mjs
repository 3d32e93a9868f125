// Part: the status tracker with 10,000 watched records on one process, against the fake checkout
// service served on loopback in a child-free setup (the fake runs in this process; its cost is in
// the numbers, which makes them conservative). Measured:
// - requests per second sent by the tracker (per 1 s window: mean and max) against the client's
//   `rateLimit.requestsPerSecond` (--rps, 1,000), with the reads in flight bounded by maxConcurrentReads;
// - change-detection lag (from the status change at the service to onChange), p50 and p99, for
//   the webhook path (a nudge at the change, as the webhook handler does) and the polling path (BRZ
//   orders: no event announces their settlement);
// - reads per record until its change was seen (reads of that record after its change);
// - memory per watched record: MemoryStatusStore (heap, after GC), RedisStatusStore (Redis used_memory)
//   and PostgresStatusStore (the table's and its indexes' size on disk);
// - store time per read: one claimDue + reschedule per record, for the memory, Redis and PostgreSQL stores.
import { CheckoutClient } from 'checkout-partner-sdk';
import { RedisStatusStore } from 'checkout-partner-sdk/redis';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { Redis } from 'ioredis';
import pg from 'pg';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { startPostgres } from '../../test/helpers/postgres-server.ts';
import { flag, report } from '../lib/measure.mjs';
import { startRedis } from '../lib/redis.mjs';

const quick = flag('quick', false);
const RECORDS = Number(flag('records', 10_000));
const RUN_MS = quick ? 20_000 : 30_000;
const CHANGES = 1_000; // per path
// the client's rate limit (the load-control issue's `rateLimit`): the tracker's reads must never exceed it
const RPS = Number(flag('rps', 1_000));
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const gc = globalThis.gc ?? (() => undefined);

const fake = createFakeCheckout({ partners: [{ partnerId: 'p-bench', partnerSecret: 's-bench' }], maxLoggedRequests: 10 });
// the records that change (2 × CHANGES, every RECORDS / (2 × CHANGES)-th), alternately announced by a
// webhook and seen by polling only; the polled ones are BRZ orders, whose settlement no event
// announces (the tracker polls them at its fast pace), the others have their trade (a webhook's)
const pathOf = new Map();
for (let k = 0; k < 2 * CHANGES; k++) pathOf.set(`o-${Math.floor((k * RECORDS) / (2 * CHANGES))}`, k % 2 === 0 ? 'webhook' : 'poll');
for (let i = 0; i < RECORDS; i++) {
  const id = `o-${i}`;
  const brz = pathOf.get(id) === 'poll';
  fake.setOrder({ externalId: id, currency: brz ? 'BRZ' : 'USDT', settlement: { status: 'Pending', tradeId: brz ? null : `t-${i}` } });
}
const server = await fake.listen({ host: '127.0.0.1' });
const redis = await startRedis();
let ioredis;
// PostgreSQL is optional here: without its binaries the PostgreSQL store is left out, said in the report
const postgres = await startPostgres().catch((error) => ({ error: error.message.split('\n')[0] }));
let pgPool;

try {
  // ---- memory per watched record, and store time per read ----
  const storeCost = async (name, store, measureBytes) => {
    gc();
    const before = await measureBytes();
    // the stores keep their own clock: a watched record is due at once
    for (let i = 0; i < RECORDS; i++) await store.watch('order', `o-${i}`);
    gc();
    const bytesPerRecord = ((await measureBytes()) - before) / RECORDS;
    // one claim + one reschedule per record, in batches of 32 (the tracker's claim size is its free read slots)
    const started = process.hrtime.bigint();
    let handled = 0;
    // bounded: every claimed record is rescheduled an hour ahead, so each round takes new ones
    for (let round = 0; handled < RECORDS && round <= RECORDS; round++) {
      const claimed = await store.claimDue({ limit: 32, leaseMs: 60_000, owner: 'bench' });
      if (claimed.length === 0) break;
      for (const record of claimed) await store.reschedule(record.lease, { failures: 0, next: { delayMs: 3_600_000 } });
      handled += claimed.length;
    }
    const usPerRead = Number(process.hrtime.bigint() - started) / 1000 / handled;
    return {
      store: name,
      bytesPerWatchedRecord: Math.round(bytesPerRecord),
      storeUsPerRead: Number(usPerRead.toFixed(1)),
      records: handled,
    };
  };
  // a store that fails is reported as such, and the other stores and the tracker are still measured
  const measured = (name, store, measureBytes) =>
    storeCost(name, store, measureBytes).catch((error) => ({ store: name, failed: String(error?.message ?? error).split('\n')[0] }));
  const stores = [await measured('memory', new MemoryStatusStore({ maxRecords: RECORDS * 2 }), async () => process.memoryUsage().heapUsed)];
  if (redis.url) {
    ioredis = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await ioredis.info('memory'))[1]);
    stores.push(await measured('redis', new RedisStatusStore({ client: ioredis, prefix: 'bench:status:' }), usedMemory));
  }
  if (postgres.error === undefined) {
    pgPool = new pg.Pool({ connectionString: postgres.url, max: 4 });
    const store = new PostgresStatusStore({ pool: pgPool, table: 'bench_status' });
    await store.ensureSchema();
    const tableBytes = async () => Number((await pgPool.query(`SELECT pg_total_relation_size('bench_status') AS n`)).rows[0].n);
    stores.push(await measured('postgres', store, tableBytes));
  } else {
    stores.push({ store: 'postgres', skipped: postgres.error });
  }

  // ---- the tracker, 10,000 records, one process ----
  let requests = 0;
  const readsOf = new Map();
  const client = new CheckoutClient({
    baseUrl: server.url,
    partnerId: 'p-bench',
    partnerSecret: 's-bench',
    rateLimit: { requestsPerSecond: RPS },
    fetch: (input, init) => {
      requests += 1;
      const url = String(input instanceof Request ? input.url : input);
      const match = /by-external-id\/([^/?]+)/.exec(url);
      if (match) readsOf.set(match[1], (readsOf.get(match[1]) ?? 0) + 1);
      return fetch(input, init);
    },
  });
  const changedAt = new Map();
  const readsAtChange = new Map();
  const lag = { webhook: [], poll: [] };
  const readsUntilSeen = { webhook: [], poll: [] };
  const path = new Map();
  const tracker = createStatusTracker({
    client,
    store: new MemoryStatusStore({ maxRecords: RECORDS * 2 }),
    maxConcurrentReads: 16,
    onChange: (change) => {
      const at = changedAt.get(change.externalId);
      if (at === undefined || change.status !== 'Settled') return;
      const via = path.get(change.externalId);
      lag[via].push(Date.now() - at);
      readsUntilSeen[via].push((readsOf.get(change.externalId) ?? 0) - readsAtChange.get(change.externalId));
    },
  });
  const t0 = Date.now();
  for (let i = 0; i < RECORDS; i++) await tracker.watchOrder(`o-${i}`);
  const watchUs = ((Date.now() - t0) * 1000) / RECORDS;
  tracker.start();
  const perSecond = [];
  let last = requests;
  const sampler = setInterval(() => {
    perSecond.push(requests - last);
    last = requests;
  }, 1_000);
  await sleep(RUN_MS / 3);
  // settle 2 × CHANGES records spread over the next third: half announced by a webhook (nudge), half seen by polling only
  const spreadMs = RUN_MS / 3;
  for (let k = 0; k < 2 * CHANGES; k++) {
    const id = `o-${Math.floor((k * RECORDS) / (2 * CHANGES))}`;
    const via = pathOf.get(id);
    setTimeout(
      () => {
        fake.settleOrder(id);
        changedAt.set(id, Date.now());
        readsAtChange.set(id, readsOf.get(id) ?? 0);
        path.set(id, via);
        if (via === 'webhook')
          void tracker.nudge('order', id, { event: { eventId: `e-${id}`, type: 'otc.trade.settled', tradeId: id.replace('o-', 't-') } });
      },
      (k * spreadMs) / (2 * CHANGES),
    );
  }
  await sleep((2 * RUN_MS) / 3);
  clearInterval(sampler);
  const drained = await tracker.drain({ timeoutMs: 5_000 });
  const steady = perSecond.slice(1);
  const summary = (via) => ({
    seen: lag[via].length,
    of: CHANGES,
    lagMsP50: quantile(lag[via], 0.5),
    lagMsP99: quantile(lag[via], 0.99),
    readsUntilSeenP50: quantile(readsUntilSeen[via], 0.5),
    readsUntilSeenMax: quantile(readsUntilSeen[via], 1),
  });
  report({
    records: RECORDS,
    runSeconds: RUN_MS / 1000,
    maxConcurrentReads: 16,
    watchUsPerRecord: Number(watchUs.toFixed(1)),
    requestsPerSecond: {
      mean: Math.round(steady.reduce((a, b) => a + b, 0) / Math.max(1, steady.length)),
      max: Math.max(...steady),
      clientRateLimit: RPS,
    },
    readsPerRecordPerMinute: Number(((requests / RECORDS) * (60_000 / RUN_MS)).toFixed(1)),
    webhook: summary('webhook'),
    poll: summary('poll'),
    stores,
    drained: drained.drained,
  });
} finally {
  await ioredis?.quit().catch(() => undefined);
  await pgPool?.end().catch(() => undefined);
  await postgres.stop?.();
  if (redis.stop) await redis.stop();
  await server.close();
}
