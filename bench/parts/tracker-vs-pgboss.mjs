// Part: the status tracker's cost per read on a transactional PostgresStatusStore against pg-boss's
// per job, the worker's CPU and the database's together, on one throwaway PostgreSQL
// (test/helpers/postgres-server.ts, loopback). Issue 37's goal: the tracker at most 0.9x pg-boss.
//
// Tracker: `--records` watched orders (200), read as fast as the schedule lets (fastIntervalMs 1,
// jitter 0, claimIntervalMs 5, the default 8 reads at once) through a reader that answers at once
// with the same status: every read is a turn that finds nothing new (claimDue, the read,
// reschedule), what a tracker pays most of the time.
// pg-boss: one queued job per record, worked by the tracker's own loop written with pg-boss's API
// (`fetch` into the free slots of 8, a 5 ms wait when none came). Fairest equivalent: what ended
// together is settled together, as the status store ends in one statement the turns that end in
// one turn of the event loop (here, reads that answer at once, a whole fetch): the next checks in
// one `insert` (pg-boss has no reschedule: a recurring check is a new job, due at once) and one
// `complete`. Shown beside it, not the goal: each job settled alone (`send` + `complete`), as
// pg-boss's own `work()` settles a job at its default `batchSize` 1.
// pg-boss's defaults otherwise (supervision, maintenance; completed jobs are kept 7 days, so
// deleting them is in no figure), started once: its start-up is in no round.
//
// Per round (`--seconds`, 3) one variant runs alone; they alternate in interleaved rounds
// (`--rounds`, 7). Worker CPU: this process's process.cpuUsage(); database CPU: the server's
// processes' user + system time from /proc (Linux). Ratios are medians of the per-round ratios.
//   node bench/parts/tracker-vs-pgboss.mjs [--records=200] [--seconds=3] [--rounds=7] [--quick]
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { createStatusTracker } from 'checkout-partner-sdk/tracker';
// the tests' own server helper (Node strips its types): initdb + pg_ctl in a temp dir, loopback only
import { startPostgres } from '../../test/helpers/postgres-server.ts';
import { cpuMicros, flag, median, report } from '../lib/measure.mjs';
import { countStatements, databaseCpuMicros, postmasterOf, statementsPer } from '../lib/postgres-cpu.mjs';

const quick = flag('quick', false);
const RECORDS = Number(flag('records', 200));
const SECONDS = Number(flag('seconds', quick ? 2 : 3));
const ROUNDS = Number(flag('rounds', quick ? 3 : 7));
const CONCURRENCY = 8; // the tracker's default maxConcurrentReads
const QUEUE = 'status-read';
/** Issue 37's goal: the tracker's worker + database CPU per read at most this times pg-boss's per job. */
const GOAL = 0.9;

if (process.platform !== 'linux') {
  report({ skipped: 'database CPU is read from /proc (Linux only)' });
  process.exit(0);
}
const postgres = await startPostgres().catch((error) => ({ error: error.message.split('\n')[0] }));
if (postgres.error !== undefined) {
  report({ skipped: postgres.error });
  process.exit(0);
}
process.once('SIGTERM', () => void postgres.stop().finally(() => process.exit(1)));

const statements = countStatements();
const pool = new pg.Pool({ connectionString: postgres.url, max: 12 });
pool.on('error', () => undefined); // an idle client lost: nothing to do in a bench
// on its own pool, as pg-boss runs by default
const boss = new PgBoss({ connectionString: postgres.url, max: 12 });
boss.on('error', (error) => console.error('pg-boss:', error.message));
let samples;
try {
  samples = await measure();
} finally {
  await boss.stop({ graceful: true, timeout: 5_000 }).catch(() => undefined);
  await pool.end();
  await postgres.stop();
}

async function measure() {
  const postmaster = await postmasterOf(pool);
  const store = new PostgresStatusStore({ pool, table: 'tracker_vs_pgboss', transactional: true });
  await store.ensureSchema();
  for (let n = 0; n < RECORDS; n++) await store.watch('order', `o-${n}`);
  await boss.start();
  await boss.createQueue(QUEUE);
  await boss.insert(
    QUEUE,
    Array.from({ length: RECORDS }, (_, n) => ({ data: { externalId: `o-${n}` } })),
  );

  let reads = 0;
  const reader = {
    getOrderByExternalId: async (externalId) => {
      reads++;
      return { externalId, currency: 'USDT', settlement: { status: 'Pending', tradeId: `t-${externalId}` } };
    },
    getWithdrawalByExternalId: async () => {
      throw new Error('unused');
    },
  };
  const variants = {
    tracker: async (round) => {
      const tracker = createStatusTracker({
        client: reader,
        store,
        owner: `round-${round}`,
        claimIntervalMs: 5,
        maxConcurrentReads: CONCURRENCY,
        schedule: { fastIntervalMs: 1, jitter: 0 },
        logger: false,
        onChange: async () => undefined,
      });
      reads = 0;
      tracker.start();
      await sleep(SECONDS * 1000);
      await tracker.drain({ timeoutMs: 5_000 });
      return reads;
    },
    'pg-boss': () => pgBossRound((jobs) => [settleBatch(jobs)]),
    'pg-boss, each job alone': () => pgBossRound((jobs) => jobs.map(settleOne)),
  };

  const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, { worker: [], database: [], done: [], statements: {} }]));
  async function round(name, r) {
    statements.clear();
    const worker0 = cpuMicros();
    const database0 = databaseCpuMicros(postmaster);
    const done = await variants[name](r);
    const worker = cpuMicros() - worker0;
    const database = databaseCpuMicros(postmaster) - database0;
    samples[name].statements = statementsPer(statements, done);
    return { worker: worker / done, database: database / done, done };
  }

  // warm-up: every record read once (its first read hands over its first status and records its
  // key: a change, not the steady state measured), bounded; a round of each pg-boss variant
  for (let w = 0; w < 20 && (await round('tracker', `warm-${w}`)).done < 2 * RECORDS; w++);
  const names = Object.keys(variants);
  for (const name of names.slice(1)) await round(name, 'warm');
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length];
      const s = await round(name, `r${r}`);
      samples[name].worker.push(s.worker);
      samples[name].database.push(s.database);
      samples[name].done.push(s.done);
    }
  }
  return samples;
}

/** One job's work (nothing), then the record's next check as a new job due at once, and the job's completion. */
async function settleOne(job) {
  await boss.send(QUEUE, job.data);
  await boss.complete(QUEUE, job.id);
}

/** A fetched batch settled together: every next check in one insert, every completion in one statement. */
async function settleBatch(jobs) {
  await boss.insert(
    QUEUE,
    jobs.map((job) => ({ data: job.data })),
  );
  await boss.complete(
    QUEUE,
    jobs.map((job) => job.id),
  );
}

/**
 * The tracker's claim loop in pg-boss for `--seconds`: fetches up to the free slots of 8, starts
 * settling what came (`settle` returns a promise per job, or one for the batch; not awaited: a slot
 * frees as its job is settled), waits for a freed slot when none is free, or 5 ms when nothing came. Resolves how
 * many jobs it fetched, once all are settled.
 */
async function pgBossRound(settle) {
  const until = performance.now() + SECONDS * 1000;
  const running = new Set();
  let fetched = 0;
  let inHand = 0;
  let freed;
  while (performance.now() < until) {
    const free = CONCURRENCY - inHand;
    const jobs = free > 0 ? await boss.fetch(QUEUE, { batchSize: free }) : [];
    fetched += jobs.length;
    inHand += jobs.length;
    const settling = jobs.length === 0 ? [] : settle(jobs);
    for (const work of settling) {
      const slots = jobs.length / settling.length;
      const settled = work.finally(() => {
        inHand -= slots;
        running.delete(settled);
        freed?.();
      });
      running.add(settled);
    }
    if (jobs.length === 0) await sleep(5);
    else if (inHand >= CONCURRENCY)
      await new Promise((resolve) => {
        freed = resolve;
        setTimeout(resolve, 20);
      });
  }
  await Promise.all(running);
  return fetched;
}

const both = (s, i) => s.worker[i] + s.database[i];
const figures = (s) => ({
  perRound: median(s.done),
  workerUs: +median(s.worker).toFixed(1),
  databaseUs: +median(s.database).toFixed(1),
  bothUs: +median(s.worker.map((_, i) => both(s, i))).toFixed(1),
  statements: s.statements,
});
// per-round ratios: the tracker's round and pg-boss's ran side by side, so a round's noise hits both alike
const ratios = (t, b) => {
  const ratio = (of) => +median(t.worker.map((_, i) => of(t, i) / of(b, i))).toFixed(3);
  return { worker: ratio((s, i) => s.worker[i]), database: ratio((s, i) => s.database[i]), both: ratio(both) };
};
const result = {
  records: RECORDS,
  seconds: SECONDS,
  rounds: ROUNDS,
  concurrency: CONCURRENCY,
  pgbossVersion: JSON.parse(readFileSync(new URL('../node_modules/pg-boss/package.json', import.meta.url), 'utf8')).version,
  variants: Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, figures(s)])),
  vsPgboss: ratios(samples.tracker, samples['pg-boss']),
  vsPgbossEachJobAlone: ratios(samples.tracker, samples['pg-boss, each job alone']),
  goal: GOAL,
};
console.table(Object.fromEntries(Object.entries(result.variants).map(([name, v]) => [name, { ...v, statements: undefined }])), [
  'perRound',
  'workerUs',
  'databaseUs',
  'bothUs',
]);
for (const [name, v] of Object.entries(result.variants)) console.log(`${name}: statements per read/job`, v.statements);
console.log('tracker / pg-boss:', result.vsPgboss, '(each job alone:', result.vsPgbossEachJobAlone, ')');
report(result);

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
