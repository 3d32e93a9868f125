// Part: the transactional PostgresEventStore's own cost per delivery, without HTTP.
// A throwaway PostgreSQL (test/helpers/postgres-server.ts: initdb in a temp dir, pg_ctl on a free
// loopback port), a pg Pool, and `store.transact(event, leaseMs, work)` with a `work` that runs one
// INSERT through its transaction (the partner's exactly-once write), one at a time and 16 at once,
// against the same work written by hand in two round trips on one connection (the limit):
//   BEGIN; INSERT the event row ON CONFLICT DO NOTHING; COMMIT; BEGIN; lock it   |   the INSERT   |   mark done; COMMIT
// `--compare=path/to/other/dist/postgres.js` adds another build's store (e.g. the last release's)
// to the same interleaved rounds: a before/after on one server at the same load.
// Counted on a delivery of a new event and on a redelivery of a done one: the pool checkouts and
// the store's own round trips (calls of `query` on the checked-out clients, each one round trip in
// pg, less the work's INSERT).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
// the tests' own server helper (Node strips its types): initdb + pg_ctl in a temp dir, loopback only
import { startPostgres } from '../../test/helpers/postgres-server.ts';
import { flag, interleave, pairedRatio, report } from '../lib/measure.mjs';

const quick = flag('quick', false);
const compare = flag('compare', undefined);
const perRound = quick ? 150 : 300;
const rounds = quick ? 3 : 5;
const LEASE_MS = 30_000;

const postgres = await startPostgres().catch((error) => ({ error: error.message.split('\n')[0] }));
if (postgres.error !== undefined) {
  report({ skipped: postgres.error });
  process.exit(0);
}
process.once('SIGTERM', () => {
  // stopped by the runner's time limit: do not leave PostgreSQL behind
  void postgres.stop().finally(() => process.exit(1));
});

/** A pg Pool whose checkouts and statements are counted. */
function countedPool() {
  const counts = { checkouts: 0, roundTrips: 0 };
  const pool = new pg.Pool({ connectionString: postgres.url, max: 20 });
  pool.on('error', () => undefined); // an idle client lost: nothing to do in a bench
  const patched = new WeakSet();
  const connect = pool.connect.bind(pool);
  // pool.query checks out through connect(callback): only the store's connect() is counted
  pool.connect = async (callback) => {
    if (callback !== undefined) return connect(callback);
    counts.checkouts++;
    const client = await connect();
    if (!patched.has(client)) {
      patched.add(client);
      client.on('error', () => undefined); // PostgreSQL stopped under a checked-out client (the time limit)
      const query = client.query;
      client.query = function countedQuery(...args) {
        counts.roundTrips++;
        return query.apply(this, args);
      };
    }
    return client;
  };
  return { pool, counts };
}

const sdk = countedPool();
const limit = countedPool();
const other = compare === undefined ? undefined : countedPool();
try {
  const store = new PostgresEventStore({ pool: sdk.pool, transactional: true, table: 'bench_events' });
  await store.ensureSchema();
  await sdk.pool.query('CREATE TABLE bench_payments (event_id text PRIMARY KEY, kind text NOT NULL)');
  await limit.pool.query('CREATE TABLE bench_limit_events (event_id text PRIMARY KEY, state text NOT NULL, done_at timestamptz)');
  await limit.pool.query('CREATE TABLE bench_limit_payments (event_id text PRIMARY KEY, kind text NOT NULL)');
  let workStatements = 0;
  const write = (table) => async (client, eventId) => {
    workStatements++;
    await client.query(`INSERT INTO ${table} (event_id, kind) VALUES ($1, $2)`, [eventId, 'otc.trade.settled']);
  };
  const sdkWrite = write('bench_payments');
  const viaSdk = async (eventId) => {
    const result = await store.transact({ eventId, type: 'otc.trade.settled' }, LEASE_MS, (transaction) => sdkWrite(transaction, eventId));
    if (result !== 'handled') throw new Error(`transact answered ${result}`);
  };
  // the limit: the same work by hand, two round trips of the store's own on one connection (the id
  // is a UUID from this process, so it is inlined as is; the SDK passes ids of any characters)
  const limitWrite = write('bench_limit_payments');
  const byHand = async (eventId) => {
    const client = await limit.pool.connect();
    try {
      const opened = await client.query(
        `BEGIN; INSERT INTO bench_limit_events (event_id, state) VALUES ('${eventId}', 'pending') ON CONFLICT DO NOTHING; COMMIT;` +
          ` BEGIN; SELECT state FROM bench_limit_events WHERE event_id = '${eventId}' FOR UPDATE NOWAIT`,
      );
      if (opened.at(-1).rows[0]?.state !== 'pending') throw new Error('the limit found the event taken');
      await limitWrite(client, eventId);
      await client.query(`UPDATE bench_limit_events SET state = 'done', done_at = clock_timestamp() WHERE event_id = '${eventId}'; COMMIT`);
    } finally {
      client.release();
    }
  };
  const variants = { 'PostgresEventStore.transact (SDK)': viaSdk, 'by hand, 2 round trips (limit)': byHand };
  if (other !== undefined) {
    const { PostgresEventStore: OtherStore } = await import(new URL(compare, `file://${process.cwd()}/`).href);
    const otherStore = new OtherStore({ pool: other.pool, transactional: true, table: 'bench_compare_events' });
    await otherStore.ensureSchema();
    await other.pool.query('CREATE TABLE bench_compare_payments (event_id text PRIMARY KEY, kind text NOT NULL)');
    const otherWrite = write('bench_compare_payments');
    variants[`PostgresEventStore.transact (${compare})`] = async (eventId) => {
      const result = await otherStore.transact({ eventId, type: 'otc.trade.settled' }, LEASE_MS, (transaction) =>
        otherWrite(transaction, eventId),
      );
      if (result !== 'handled') throw new Error(`transact answered ${result}`);
    };
  }

  // round trips and checkouts of one delivery and of one redelivery
  const perDelivery = async ({ counts }, run, redelivered) => {
    await run(randomUUID()); // the first delivery also starts the store's once-a-minute purge: not counted
    const eventId = randomUUID();
    const measure = async () => {
      const before = { ...counts, workStatements };
      await run(eventId);
      // the store's own: the work's INSERT is not counted
      return {
        checkouts: counts.checkouts - before.checkouts,
        roundTrips: counts.roundTrips - before.roundTrips - (workStatements - before.workStatements),
      };
    };
    const delivery = await measure();
    return { delivery, redelivery: redelivered ? await measure().catch((error) => ({ error: error.message })) : undefined };
  };
  // a redelivery of a done event answers 'done': counted separately from the throughput runs
  const redeliverable = async (eventId) => {
    const result = await store.transact({ eventId, type: 'otc.trade.settled' }, LEASE_MS, (transaction) => sdkWrite(transaction, eventId));
    if (result !== 'handled' && result !== 'done') throw new Error(`transact answered ${result}`);
  };
  const sdkCounts = await perDelivery(sdk, redeliverable, true);
  const limitCounts = await perDelivery(limit, byHand, false);
  const otherCounts =
    other === undefined ? undefined : await perDelivery(other, variants[`PostgresEventStore.transact (${compare})`], false);

  const sequential = async (run) => {
    for (let i = 0; i < perRound; i++) await run(randomUUID());
    return perRound;
  };
  const concurrent = async (run) => {
    let left = perRound;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (left-- > 0) await run(randomUUID());
      }),
    );
    return perRound;
  };
  const seq = await interleave(variants, { rounds, batch: sequential });
  const conc = await interleave(variants, { rounds, batch: concurrent });
  const sdkName = 'PostgresEventStore.transact (SDK)';
  const limitName = 'by hand, 2 round trips (limit)';
  report({
    perRound,
    rounds,
    deliveries: Object.fromEntries(
      Object.keys(variants).map((name) => [
        name,
        { sequentialPerSecond: seq[name].opsPerSec, concurrent16PerSecond: conc[name].opsPerSec, cpuUsPerDelivery: seq[name].cpuUsPerOp },
      ]),
    ),
    sequentialVsLimit: pairedRatio(seq, sdkName, limitName, 'opsPerSecSamples'),
    concurrentVsLimit: pairedRatio(conc, sdkName, limitName, 'opsPerSecSamples'),
    // the store's own round trips (the work's INSERT left out) and pool checkouts
    sdk: sdkCounts,
    limit: limitCounts,
    ...(other === undefined
      ? {}
      : {
          compare: otherCounts,
          sequentialVsCompare: pairedRatio(seq, sdkName, `PostgresEventStore.transact (${compare})`, 'opsPerSecSamples'),
          concurrentVsCompare: pairedRatio(conc, sdkName, `PostgresEventStore.transact (${compare})`, 'opsPerSecSamples'),
        }),
  });
} finally {
  await sdk.pool.end().catch(() => undefined);
  await limit.pool.end().catch(() => undefined);
  await other?.pool.end().catch(() => undefined);
  await postgres.stop();
}
