/**
 * `npm run test:soak:tracker`: the status tracker under the worst the world does, against the BUILT
 * package. Three tracker processes (createStatusTracker + RedisStatusStore, each with a webhook
 * endpoint that nudges it) on one real redis-server (append-only file on); SOAK_RECORDS (2,000)
 * orders and withdrawals whose statuses the fake service changes at planned random times; a
 * provider simulator that loses 20% of the events, duplicates 20%, and delays them up to 3 s (so
 * reorders them); one in 25 onChange calls throws. One tracker process runs with its wall clock
 * SOAK_CLOCK_SKEW_MS off (default 5 minutes ahead; test/helpers/skewed-clock.mjs offsets its `Date`):
 * leases and due times are the store's, so it neither takes the others' live leases nor stops
 * reading. Mid-run one tracker process is SIGKILLed and restarted, and Redis is restarted once. The fake holds each status until the fleet handed it over
 * (at least 3 fast poll intervals), so every status of every timeline is observable. Then every
 * onChange line is checked against what the fake service did: every (record, status) pair of
 * every timeline handed over (0 lost), none twice
 * (0 doubled; a copy by the SIGKILLed process within its last second, between onChange and
 * the commit, is the one window a non-transactional store leaves, and is counted apart), statuses
 * in the order they happened, previousStatus chained. Exits non-zero on any violation.
 *
 * PostgreSQL mode (`npm run test:soak:tracker -- --postgres`): the same on one real PostgreSQL
 * (durable commits) with a transactional `PostgresStatusStore`: each `onChange` writes its effect
 * row through `transaction` into a table with no unique key (and the injected failure comes after
 * that write), PostgreSQL is restarted (`-m fast`) instead of Redis, and the check reads the effect
 * rows: exactly one per (record, status), with no SIGKILL window allowed.
 *
 * Bounded: a 150 s hard limit, a time limit on every child, every child killed by pid on exit.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { PostgresEventStore, PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { startPostgres, type PostgresServer } from '../../../test/helpers/postgres-server.js';
import { assertFreshBuild, FROM_SRC, killAll, ROOT, spawnTs, type BoundedChild } from '../../chaos/children.js';
import { freePort, startSoakRedis, type SoakRedis } from '../redis.js';
import { planRecord, STATUS_PREFIX } from './plan.js';

const RECORDS = Number(process.env.SOAK_RECORDS ?? 2_000);
const POSTGRES = process.argv.includes('--postgres');
const PG_TABLE = 'tsoak_status';
const PG_EFFECTS = 'tsoak_effects';
const PROCESSES = 3;
/** p1's wall clock is this far off (p2 is the one SIGKILLed); 0 for none. Negative: behind. */
const SKEW_MS = Number(process.env.SOAK_CLOCK_SKEW_MS ?? 300_000);
const SKEWED = 1;
const SKEW_PRELOAD = join(ROOT, 'test/helpers/skewed-clock.mjs');
const SEED = Number(process.env.SOAK_SEED ?? 20_261_124);
const SPREAD_MS = 20_000;
const HARD_LIMIT_MS = 150_000;
const started = Date.now();
const failures: string[] = [];
const fail = (message: string) => failures.push(message);
const note = (message: string) => console.log(`[tracker-soak +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

let redis: SoakRedis | undefined;
let postgres: PostgresServer | undefined;
const killRedis = () => {
  void postgres?.stop();
  const pid = redis?.pid();
  if (pid !== undefined) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};
process.on('exit', killRedis);
const hardStop = setTimeout(() => {
  process.stderr.write(`FAIL: the tracker soak exceeded its ${HARD_LIMIT_MS / 1000} s hard limit\n`);
  killAll();
  killRedis();
  process.exit(1);
}, HARD_LIMIT_MS);

function waitForLine(child: BoundedChild, lines: string[], pattern: RegExp, ms: number, name: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + ms;
    const poll = setInterval(() => {
      for (const line of lines) {
        const match = pattern.exec(line);
        if (match) {
          clearInterval(poll);
          resolve(match);
          return;
        }
      }
      if (child.child.exitCode !== null || child.child.signalCode !== null || Date.now() > deadline) {
        clearInterval(poll);
        reject(new Error(`${name} did not print ${pattern} within ${ms} ms: ${child.output.stderr.trim().slice(-1500)}`));
      }
    }, 20);
  });
}

const dir = mkdtempSync(join(tmpdir(), 'tracker-soak-'));
const logFile = join(dir, 'changes.log');
const truthFile = join(dir, 'truth.log');
const traceFile = join(dir, 'trace.jsonl');
const secret = `whsec-tracker-soak-${randomUUID()}`;

try {
  if (!FROM_SRC) assertFreshBuild(['index.js', 'webhooks.node.js', 'redis.js', 'postgres.js', 'tracker.js', 'testing.js']);
  let admin: pg.Pool | undefined;
  if (POSTGRES) {
    postgres = await startPostgres({ durableCommits: true });
    admin = new pg.Pool({ connectionString: postgres.url, max: 2 });
    admin.on('error', () => undefined);
    await new PostgresStatusStore({ pool: admin, table: PG_TABLE }).ensureSchema();
    await new PostgresEventStore({ pool: admin, table: `${PG_TABLE}_events` }).ensureSchema();
    await admin.query(
      `CREATE TABLE ${PG_EFFECTS} (kind text, external_id text, status text, previous text, source text, pid int, at bigint)`,
    );
    note(`PostgreSQL on ${postgres.url} (durable commits); effects table ${PG_EFFECTS} has no unique key`);
  } else {
    mkdirSync(join(dir, 'redis'));
    redis = await startSoakRedis(join(dir, 'redis'));
    note(`redis-server pid ${redis.pid()} on ${redis.url} (appendonly yes)`);
  }

  const ports = await Promise.all(Array.from({ length: PROCESSES }, () => freePort()));
  const epoch = Date.now() + 8_000; // time for every child to start
  const common = {
    SOAK_RECORDS: String(RECORDS),
    SOAK_SEED: String(SEED),
    SOAK_EPOCH: String(epoch),
    SOAK_SPREAD_MS: String(SPREAD_MS),
    SOAK_WEBHOOK_SECRET: secret,
  };
  const fakeLines: string[] = [];
  const fake = spawnTs(join(ROOT, 'scripts/soak/tracker/fake.ts'), [], {
    name: 'fake',
    timeoutMs: HARD_LIMIT_MS,
    env: {
      ...common,
      SOAK_TRUTH: truthFile,
      SOAK_LOG: logFile,
      SOAK_WEBHOOK_URLS: ports.map((port) => `http://127.0.0.1:${port}/`).join(','),
      // PostgreSQL mode: the fake holds a status until its effect row has committed
      ...(postgres === undefined ? {} : { SOAK_PG_URL: postgres.url, SOAK_PG_EFFECTS: PG_EFFECTS }),
    },
    onLine: (line) => fakeLines.push(line),
  });
  const fakeUrl = (await waitForLine(fake, fakeLines, /^FAKE-URL (\S+)$/, 30_000, 'the fake service'))[1] as string;
  note(`fake checkout service and provider simulator on ${fakeUrl}`);

  const procs: { proc: BoundedChild; lines: string[] }[] = [];
  const startProcess = async (index: number) => {
    const lines: string[] = [];
    const proc = spawnTs(join(ROOT, 'scripts/soak/tracker/tracker-process.ts'), [], {
      name: `p${index}`,
      timeoutMs: HARD_LIMIT_MS,
      env: {
        ...common,
        SOAK_INDEX: String(index),
        SOAK_PROCESSES: String(PROCESSES),
        SOAK_PORT: String(ports[index]),
        SOAK_LOG: logFile,
        SOAK_TRACE: traceFile,
        SOAK_REDIS_URL: redis?.url,
        SOAK_PG_URL: postgres?.url,
        SOAK_PG_TABLE: PG_TABLE,
        SOAK_PG_EFFECTS: PG_EFFECTS,
        SOAK_FAKE_URL: fakeUrl,
        // the skewed member: its Date is SKEW_MS off from the start (its schedule reads the true time)
        ...(index === SKEWED && SKEW_MS !== 0
          ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${SKEW_PRELOAD}`.trim(), CLOCK_SKEW_MS: String(SKEW_MS) }
          : {}),
      },
      onLine: (line) => lines.push(line),
    });
    const ready = await waitForLine(proc, lines, /^READY \d+ (\d+)$/, 30_000, `tracker process p${index}`);
    // the premise: the skewed member's Date is off by SKEW_MS (give or take its start-up), the others' true
    const off = Number(ready[1]) - Date.now();
    const expected = index === SKEWED ? SKEW_MS : 0;
    if (Math.abs(off - expected) > 10_000) fail(`tracker process p${index}'s clock is ${off} ms off, expected ${expected}`);
    procs[index] = { proc, lines };
  };
  await Promise.all(Array.from({ length: PROCESSES }, (_, i) => startProcess(i)));
  note(
    `${PROCESSES} tracker processes ready; ${RECORDS} records, watched over ${SPREAD_MS / 1000} s from the epoch; p${SKEWED}'s clock is ${SKEW_MS / 1000} s off`,
  );
  const skewedPid = procs[SKEWED]!.proc.child.pid as number;

  await sleep(Math.max(0, epoch + 14_000 - Date.now()));
  const victim = procs[2]!;
  const victimPid = victim.proc.child.pid as number;
  const killedAt = Date.now();
  note(`SIGKILL p2 (pid ${victimPid})`);
  victim.proc.child.kill('SIGKILL');
  await victim.proc.exited;
  await sleep(1_500);
  await startProcess(2);
  note('p2 restarted');

  await sleep(Math.max(0, epoch + 26_000 - Date.now()));
  const restartAt = Date.now();
  if (postgres !== undefined) {
    await postgres.restart('fast');
    note(`PostgreSQL restarted (fast) in ${Date.now() - restartAt} ms (open transactions rolled back)`);
  } else {
    await redis!.stop();
    await redis!.start();
    note(`redis-server restarted in ${Date.now() - restartAt} ms (AOF replayed)`);
  }

  // every planned change is done by then; wait until no record is watched any more
  const lastChange = Math.max(
    ...Array.from({ length: RECORDS }, (_, i) => Math.max(...planRecord(i, SEED, SPREAD_MS).changes.map((c) => c.atMs))),
  );
  await sleep(Math.max(0, epoch + lastChange - Date.now()));
  note('the last planned change is applied; waiting for every watch to end');
  const probe = redis === undefined ? undefined : new Redis(redis.url, { maxRetriesPerRequest: 1 });
  probe?.on('error', () => undefined);
  const countWatched = async (): Promise<number> =>
    probe !== undefined
      ? await probe.zcard(`${STATUS_PREFIX}due`)
      : (await admin!.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${PG_TABLE} WHERE watching`)).rows[0]!.n;
  let watched = -1;
  const watchDeadline = Date.now() + 40_000;
  while (Date.now() < watchDeadline) {
    watched = await countWatched().catch(() => -1);
    if (watched === 0) break;
    await sleep(500);
  }
  probe?.disconnect();
  if (watched !== 0) fail(`${watched} records were still watched 40 s after the last change`);
  note(`every watch ended (${((Date.now() - epoch - lastChange) / 1000).toFixed(1)} s after the last change)`);

  for (const { proc } of procs) proc.child.kill('SIGTERM');
  const exits = await Promise.all(procs.map(({ proc }) => proc.exited));
  exits.forEach((exit, i) => {
    if (exit.code !== 0) fail(`tracker process p${i} did not drain and exit cleanly (code ${exit.code}, signal ${exit.signal})`);
  });
  const processStats = procs.map(({ lines }) => lines.find((line) => line.startsWith('STATS '))?.slice(6) ?? '{}');
  fake.child.kill('SIGTERM');
  await fake.exited;
  const provider = fakeLines.find((line) => line.startsWith('PROVIDER '))?.slice(9) ?? '{}';
  const holds = fakeLines.find((line) => line.startsWith('HOLDS '))?.slice(6) ?? '{}';
  await redis?.stop();
  // PostgreSQL mode: the effect rows written through `transaction` are what was handed over (the log is at least once)
  const effectLines =
    admin === undefined
      ? undefined
      : (await admin.query(`SELECT kind, external_id, status, previous, source, pid, at FROM ${PG_EFFECTS}`)).rows.map(
          (r: Record<string, unknown>) =>
            `C ${[r['kind'], r['external_id'], r['status'], r['previous'], r['source'], r['pid'], r['at']].map(String).join(' ')}`,
        );
  const idle =
    admin === undefined
      ? 0
      : (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'`))
          .rows[0]!.n;
  if (idle > 0) fail(`${idle} PostgreSQL sessions left idle in transaction`);
  await admin?.end();
  await postgres?.stop();

  // ---- the check ----
  const truth = new Map<string, string[]>();
  for (const line of readFileSync(truthFile, 'utf8').split('\n')) {
    const [kind, id, status] = line.split(' ');
    if (kind === undefined || id === undefined || status === undefined) continue;
    truth.set(id, [...(truth.get(id) ?? []), status]);
  }
  const handed = new Map<string, { status: string; previous: string; source: string; pid: number; at: number }[]>();
  let lines = 0;
  for (const line of effectLines ?? readFileSync(logFile, 'utf8').split('\n')) {
    const [tag, , id, status, previous, source, pid, at] = line.split(' ');
    if (tag !== 'C' || id === undefined || status === undefined) continue;
    lines += 1;
    handed.set(id, [...(handed.get(id) ?? []), { status, previous: previous!, source: source!, pid: Number(pid), at: Number(at) }]);
  }
  let lost = 0;
  let recordsWithLoss = 0;
  let finalLost = 0;
  let doubled = 0;
  let killWindow = 0;
  let outOfOrder = 0;
  let brokenChain = 0;
  let changesExpected = 0;
  let changesHanded = 0;
  const bySource = { poll: 0, webhook: 0 };
  const examples: string[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const plan = planRecord(i, SEED, SPREAD_MS);
    const happened = truth.get(plan.externalId) ?? [];
    const got = (handed.get(plan.externalId) ?? []).sort((a, b) => a.at - b.at);
    changesExpected += happened.length;
    const final = plan.changes.at(-1)!.status;
    const distinct: typeof got = [];
    for (const entry of got) {
      const earlier = distinct.find((d) => d.status === entry.status);
      if (earlier === undefined) {
        distinct.push(entry);
        continue;
      }
      // the one window a non-transactional store leaves: onChange ran in the killed process, which died before the commit
      if (!POSTGRES && earlier.pid === victimPid && earlier.at <= killedAt && earlier.at > killedAt - 1_000) killWindow += 1;
      else {
        doubled += 1;
        if (examples.length < 5) examples.push(`${plan.externalId} ${entry.status} twice`);
      }
    }
    changesHanded += distinct.length;
    for (const entry of distinct) bySource[entry.source as 'poll' | 'webhook'] += 1;
    // every status of the timeline (the fake held each until it was handed over) exactly once
    const missing = happened.filter((status) => !distinct.some((d) => d.status === status));
    lost += missing.length;
    if (missing.length > 0) {
      recordsWithLoss += 1;
      if (examples.length < 5)
        examples.push(`${plan.externalId}: ${missing.join(',')} never handed (got ${distinct.map((d) => d.status).join(',')})`);
    }
    if (!distinct.some((d) => d.status === final)) finalLost += 1;
    const order = distinct.map((d) => happened.indexOf(d.status));
    if (order.some((v, k) => v < 0 || (k > 0 && v <= order[k - 1]!))) {
      outOfOrder += 1;
      if (examples.length < 5)
        examples.push(`${plan.externalId}: handed ${distinct.map((d) => d.status).join(',')} but it went ${happened.join(',')}`);
    }
    distinct.forEach((d, k) => {
      if (d.previous !== (k === 0 ? '-' : distinct[k - 1]!.status) && !(k > 0 && distinct[k - 1]!.pid === victimPid)) brokenChain += 1;
    });
  }
  note(
    `onChange lines: ${lines}; (record, status) pairs: ${changesExpected} in the timelines, ${changesHanded} handed over, ${lost} lost (in ${recordsWithLoss} records; final status lost: ${finalLost}), ${doubled} doubled`,
  );
  note(
    `by source: ${JSON.stringify(bySource)}; provider: ${provider}; fake holds (a status kept past its planned end until handed over): ${holds}`,
  );
  note(`tracker processes: ${processStats.join(' ')}`);
  // the skewed member took its share: neither starved (a clock behind) nor idle
  const bySkewed = [...handed.values()].flat().filter((entry) => entry.pid === skewedPid).length;
  note(`changes handed over by the skewed process p${SKEWED} (pid ${skewedPid}, clock ${SKEW_MS / 1000} s off): ${bySkewed}`);
  if (SKEW_MS !== 0 && bySkewed === 0) fail(`the skewed process p${SKEWED} handed no change over: its clock kept it from reading`);
  if (effectLines !== undefined) {
    const logged = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('C ')).length;
    note(
      `PostgreSQL: ${effectLines.length} effect rows; ${logged - effectLines.length} onChange calls completed but rolled back (the SIGKILL, the restart), their effects gone with them`,
    );
  }
  note(
    `lost ${lost}, doubled ${doubled}, out of order ${outOfOrder}, broken previousStatus chains ${brokenChain}; in the SIGKILL window (onChange ran, the process died before its commit): ${killWindow}`,
  );
  if (lost > 0) fail(`${lost} (record, status) changes of the timelines never reached onChange (${finalLost} of them final)`);
  if (changesHanded + lost !== changesExpected)
    fail(`handed ${changesHanded} + lost ${lost} != ${changesExpected} statuses in the timelines`);
  if (doubled > 0) fail(`${doubled} (record, status) changes handed over more than once outside the SIGKILL window`);
  if (outOfOrder > 0) fail(`${outOfOrder} records whose changes were handed out of order`);
  if (brokenChain > 0) fail(`${brokenChain} changes whose previousStatus is not the status handed before`);
  if (bySource.webhook === 0 || bySource.poll === 0)
    fail('no change was seen by one of the two paths (webhook, poll): the soak did not exercise both');
  if (examples.length > 0) note(`examples: ${examples.join(' | ')}`);
  // the story of the status held longest, and of the records that lost one: what the fake did, what the fleet logged
  const longest = (JSON.parse(holds) as { longest?: string[] }).longest?.[0]?.split(' ')[0];
  const lostIds = examples.filter((example) => example.includes('never handed')).map((example) => example.split(':')[0]!);
  const stories = [...new Set([...lostIds.slice(0, 2), ...(longest === undefined ? [] : [longest])])];
  if (stories.length > 0) tellStories(stories, epoch, truthFile, traceFile, note);
} catch (error) {
  fail(`the soak itself failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  clearTimeout(hardStop);
  killAll();
  killRedis();
}

/** Prints, for each record, its timeline (the fake's changes) and the fleet's log entries about it, in seconds from the epoch. */
function tellStories(ids: string[], epoch: number, truthPath: string, tracePath: string, print: (line: string) => void): void {
  const at = (ms: number) => `${((ms - epoch) / 1000).toFixed(2)}s`;
  const truthLines = readFileSync(truthPath, 'utf8').split('\n');
  const traceLines = readFileSync(tracePath, 'utf8').split('\n');
  for (const id of ids) {
    const events: { t: number; line: string }[] = [];
    for (const line of truthLines) {
      const [, lineId, status, t] = line.split(' ');
      if (lineId === id) events.push({ t: Number(t), line: `fake: ${status}` });
    }
    for (const line of traceLines) {
      if (!line.includes(`"${id}"`)) continue;
      const { t, p, pid, externalId, ...entry } = JSON.parse(line) as Record<string, unknown> & { t: number };
      delete entry['kind'];
      if (externalId === id) events.push({ t, line: `p${String(p)} (${String(pid)}): ${JSON.stringify(entry)}` });
    }
    events.sort((a, b) => a.t - b.t);
    print(`story of ${id} (${events.length} entries${events.length > 40 ? ', the last 40' : ''}):`);
    for (const { t, line } of events.slice(-40)) print(`  ${at(t)} ${line.slice(0, 300)}`);
  }
}

if (failures.length > 0) {
  for (const message of failures) process.stderr.write(`FAIL: ${message}\n`);
  process.stderr.write(`(files kept in ${dir})\n`);
  process.exit(1);
}
if (process.env.SOAK_KEEP_FILES === '1') note(`files kept in ${dir} (SOAK_KEEP_FILES=1)`);
else rmSync(dir, { recursive: true, force: true });
note('PASS');
process.exit(0);
