// Part (run on its own): the status tracker's own cost per read on a transactional PostgresStatusStore,
// the worker's CPU and the database's together. A throwaway PostgreSQL (test/helpers/postgres-server.ts),
// `--records` watched orders (200) on one table per build, read as fast as the schedule lets
// (fastIntervalMs 1, jitter 0) through a reader that answers at once with the same status, so every
// read is a turn that finds nothing new (claimDue, the read, the key its read reveals, reschedule):
// what a tracker pays most of the time. Per round (`--seconds`, 3) one build runs alone; the builds
// alternate in interleaved rounds (`--rounds`, 7), so both see the same server at the same load.
// Worker CPU is this process's process.cpuUsage(); database CPU is the server's processes' user +
// system time from /proc (Linux). Builds: `--builds=dir1,dir2` (dist folders; default: ../../dist).
//   node bench/parts/tracker-read-cost.mjs --builds=.tmp/dist-before,dist
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startPostgres } from '../../test/helpers/postgres-server.ts';
import { flag, median } from '../lib/measure.mjs';
import { databaseCpuMicros as databaseCpu, postmasterOf } from '../lib/postgres-cpu.mjs';

const builds = String(flag('builds', new URL('../../dist', import.meta.url).pathname)).split(',');
const RECORDS = Number(flag('records', 200));
const SECONDS = Number(flag('seconds', 3));
const ROUNDS = Number(flag('rounds', 7));

const postgres = await startPostgres();
process.once('SIGTERM', () => void postgres.stop().finally(() => process.exit(1)));
const pool = new pg.Pool({ connectionString: postgres.url, max: 12 });
pool.on('error', () => undefined);
/** Statements sent on clients checked out of the pool (each one a round trip), by their first words. */
const statements = new Map();
{
  const connect = pool.connect.bind(pool);
  const patched = new WeakSet();
  pool.connect = async (...args) => {
    if (args.length > 0) return connect(...args);
    const client = await connect();
    if (!patched.has(client)) {
      patched.add(client);
      const query = client.query;
      client.query = function countedQuery(text, ...rest) {
        statements.set(text, (statements.get(text) ?? 0) + 1); // summed by their first words at the end, not per call
        return query.call(this, text, ...rest);
      };
    }
    return client;
  };
}

const postmaster = await postmasterOf(pool);
const databaseCpuMicros = () => databaseCpu(postmaster);
const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

const variants = [];
for (const [i, dir] of builds.entries()) {
  const base = pathToFileURL(resolve(dir)).href;
  const { createStatusTracker } = await import(`${base}/tracker.js`);
  const { PostgresStatusStore } = await import(`${base}/postgres.js`);
  const table = `read_cost_${i}`;
  const store = new PostgresStatusStore({ pool, table, transactional: true });
  await store.ensureSchema();
  const drop = flag(`drop${i}`, undefined);
  if (drop !== undefined) for (const index of String(drop).split('+')) await pool.query(`DROP INDEX IF EXISTS ${table}_${index}`);
  for (let n = 0; n < RECORDS; n++) await store.watch('order', `o-${n}`);
  variants.push({ name: dir, createStatusTracker, store, samples: { worker: [], database: [], reads: [] } });
}

let readsInRound = 0;
const reader = {
  getOrderByExternalId: async (externalId) => {
    readsInRound++;
    return { externalId, currency: 'USDT', settlement: { status: 'Pending', tradeId: `t-${externalId}` } };
  },
  getWithdrawalByExternalId: async () => {
    throw new Error('unused');
  },
};

async function round(variant, owner) {
  const tracker = variant.createStatusTracker({
    client: reader,
    store: variant.store,
    owner,
    claimIntervalMs: 5,
    schedule: { fastIntervalMs: 1, jitter: 0 },
    logger: false,
    onChange: async () => undefined,
  });
  readsInRound = 0;
  statements.clear();
  const worker0 = cpuMicros();
  const database0 = databaseCpuMicros();
  tracker.start();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  await tracker.drain({ timeoutMs: 5_000 });
  const result = { worker: cpuMicros() - worker0, database: databaseCpuMicros() - database0, reads: readsInRound };
  const byWords = new Map();
  for (const [text, n] of statements) {
    const what = typeof text === 'string' ? text.replace(/\s+/g, ' ').slice(0, 40) : 'other';
    byWords.set(what, (byWords.get(what) ?? 0) + n);
  }
  variant.statements = Object.fromEntries([...byWords].map(([what, n]) => [what, +(n / readsInRound).toFixed(3)]));
  return result;
}

// warm-up: until every record was read once (its first read hands over its first status and
// records its key: a change, not the steady state measured), bounded
for (const v of variants) for (let w = 0; w < 20 && (await round(v, `warm-${w}`)).reads < 2 * RECORDS; w++);
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < variants.length; k++) {
    const v = variants[(k + r) % variants.length];
    const s = await round(v, `r${r}-${k}`);
    v.samples.worker.push(s.worker / s.reads);
    v.samples.database.push(s.database / s.reads);
    v.samples.reads.push(s.reads);
  }
}
const rows = variants.map((v) => ({
  build: v.name,
  'reads/round': median(v.samples.reads),
  'worker µs/read': +median(v.samples.worker).toFixed(1),
  'database µs/read': +median(v.samples.database).toFixed(1),
  'both µs/read': +median(v.samples.worker.map((w, i) => w + v.samples.database[i])).toFixed(1),
}));
console.table(rows);
for (const v of variants) console.log(`${v.name}: statements per read (last round)`, v.statements);
// each build against the first (median of the per-round ratios: a round's noise hits both alike)
const [first, ...others] = variants;
const both = (v, i) => v.samples.worker[i] + v.samples.database[i];
for (const v of others) {
  const ratio = (of) => median(v.samples.worker.map((_, i) => of(v, i) / of(first, i))).toFixed(2);
  console.log(
    `${v.name} / ${first.name}: worker ${ratio((x, i) => x.samples.worker[i])}x, database ${ratio((x, i) => x.samples.database[i])}x, both ${ratio(both)}x`,
  );
}
await pool.end();
await postgres.stop();
