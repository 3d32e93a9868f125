/**
 * The soak's PostgreSQL mode (`npm run test:soak -- --postgres`): 3 webhook receivers, each with
 * a transactional PostgresEventStore on one real PostgreSQL server, confirming through the fake
 * checkout service, while the simulated provider delivers SOAK_PG_EVENTS (2,000) events with 30%
 * duplicates, retrying until 2xx; 10% of onEvent calls fail after writing. The receivers reach
 * PostgreSQL through a TCP proxy (test/helpers/tcp-proxy.ts). Mid-run one receiver is SIGKILLed and
 * restarted, PostgreSQL is restarted (`-m fast`, then `-m immediate`), every receiver session is
 * ended with `pg_terminate_backend`, the proxy resets every connection, and then blackholes the
 * network for SOAK_PG_BLACKHOLE_MS (20 s: packets dropped, nothing closed) while transactions are
 * open. Then every event's effect row, written by onEvent through `transaction` into a table
 * without a unique key, must be there exactly once (0 lost, 0 doubled), no session may be left idle
 * in transaction or holding a lock, and every receiver must drain and exit by itself on SIGTERM.
 *
 * postgres.js is not run here: the store refuses it in transactional mode (see the README).
 *
 * Bounded: a 150 s hard limit, a time limit on every child, every child killed by pid and the
 * PostgreSQL server stopped on exit, also on failure.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import { startPostgres, type PostgresServer } from '../../test/helpers/postgres-server.js';
import { startTcpProxy, type TcpProxy } from '../../test/helpers/tcp-proxy.js';
import { assertFreshBuild, FROM_SRC, killAll, ROOT, spawnTs, type BoundedChild } from '../chaos/children.js';
import { soakEvent } from './events.js';
import { Provider } from './provider.js';
import { freePort } from './redis.js';

const EVENTS = Number(process.env.SOAK_PG_EVENTS ?? 2_000);
const RECEIVERS = 3;
const HARD_LIMIT_MS = 150_000;
const BLACKHOLE_MS = Number(process.env.SOAK_PG_BLACKHOLE_MS ?? 20_000);

/** Spawns a child and resolves once it prints a line matching `ready` (rejects when it exits first or after 30 s). */
function spawnReady(
  file: string,
  name: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ proc: BoundedChild; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} was not ready within 30 s: ${proc.output.stderr.slice(-1500)}`)), 30_000);
    const proc = spawnTs(file, [], {
      name,
      timeoutMs: HARD_LIMIT_MS,
      ipc: name === 'fake',
      env,
      onLine: (line) => {
        const match = ready.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve({ proc, match });
        }
      },
    });
    void proc.exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready: ${proc.output.stderr.slice(-1500)}`));
    });
  });
}

/** Runs the PostgreSQL soak and resolves with the exit code (0 when every check passed). */
export async function runPostgresSoak(): Promise<number> {
  const started = Date.now();
  const note = (message: string) => console.log(`[soak:postgres +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
  const failures: string[] = [];
  const fail = (message: string) => failures.push(message);
  const dir = mkdtempSync(join(tmpdir(), 'soak-pg-'));
  const logFile = join(dir, 'failures.log');
  writeFileSync(logFile, '');
  let server: PostgresServer | undefined;
  const hardStop = setTimeout(() => {
    process.stderr.write(`FAIL: the PostgreSQL soak exceeded its ${HARD_LIMIT_MS / 1000} s hard limit\n`);
    killAll();
    void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
  }, HARD_LIMIT_MS);
  let pool: pg.Pool | undefined;
  let proxy: TcpProxy | undefined;
  try {
    if (!FROM_SRC) assertFreshBuild(['index.js', 'webhooks.node.js', 'postgres.js', 'testing.js']);
    server = await startPostgres({ durableCommits: true }); // acknowledged commits survive the immediate restart
    note(`PostgreSQL on ${server.url}`);
    proxy = await startTcpProxy(server.port);
    pool = new pg.Pool({ connectionString: server.url, max: 2 });
    pool.on('error', () => undefined);
    await new PostgresEventStore({ pool }).ensureSchema();
    // no unique key: a doubled effect must show up as two rows
    await pool.query('CREATE TABLE soak_effects (event_id text NOT NULL, receiver text, pid int, confirmed boolean)');

    const { proc: fake, match } = await spawnReady(
      join(ROOT, 'scripts/soak/fake-service.ts'),
      'fake',
      { SOAK_EVENTS: String(EVENTS) },
      /^FAKE-URL (\S+)$/,
    );
    const fakeUrl = match[1] as string;
    const secret = `whsec-soak-${randomUUID()}`;
    const ports = await Promise.all(Array.from({ length: RECEIVERS }, () => freePort()));
    const receivers: BoundedChild[] = [];
    const startReceiver = async (index: number) => {
      const env = {
        SOAK_RECEIVER: `r${index}`,
        SOAK_PORT: String(ports[index]),
        SOAK_FAIL_RATE: '0.1',
        SOAK_LOG: logFile,
        SOAK_DATABASE_URL: proxy?.via(server?.url ?? '') ?? '',
        SOAK_FAKE_URL: fakeUrl,
        SOAK_WEBHOOK_SECRET: secret,
      };
      receivers[index] = (await spawnReady(join(ROOT, 'scripts/soak/postgres-receiver.ts'), `r${index}`, env, /^READY /)).proc;
    };
    await Promise.all(Array.from({ length: RECEIVERS }, (_, i) => startReceiver(i)));
    note(`${RECEIVERS} receivers ready on ports ${ports.join(', ')}`);

    const provider = new Provider({
      events: EVENTS,
      receivers: ports.map((port) => `http://127.0.0.1:${port}`),
      secret,
      concurrency: 32,
      deadline: started + HARD_LIMIT_MS - 15_000,
      seed: Number(process.env.SOAK_SEED ?? 0xc0ffee),
    });
    const delivering = provider.run();

    await provider.reached(0.3, 'the SIGKILL');
    const victim = receivers[1] as BoundedChild;
    note(`SIGKILL r1 (pid ${victim.child.pid}) with transactions open`);
    victim.child.kill('SIGKILL');
    await victim.exited;
    await sleep(1000);
    await startReceiver(1);
    note('r1 restarted');

    await provider.reached(0.6, 'the PostgreSQL restart');
    const restartAt = Date.now();
    await server.restart('fast');
    note(`PostgreSQL restarted (fast) in ${Date.now() - restartAt} ms (open transactions rolled back)`);

    await provider.reached(0.7, 'the immediate restart');
    await server.restart('immediate');
    note('PostgreSQL restarted (immediate: crash recovery)');

    await provider.reached(0.75, 'pg_terminate_backend');
    const ended = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()) AS t`,
    );
    note(`pg_terminate_backend ended ${ended.rows[0]?.n ?? 0} sessions`);

    await provider.reached(0.8, 'the proxy reset');
    note(`proxy reset: ${proxy.open} connections destroyed (RST)`);
    proxy.reset();

    await provider.reached(0.85, 'the blackhole');
    proxy.blackhole();
    note(`network blackholed for ${BLACKHOLE_MS / 1000} s (nothing forwarded, nothing closed)`);
    await sleep(BLACKHOLE_MS);
    const stuck = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()`,
    );
    proxy.restore();
    note(`network back; ${stuck.rows[0]?.n ?? -1} sessions were left idle in transaction by then (PostgreSQL ends them at leaseMs)`);
    if ((stuck.rows[0]?.n ?? 0) > 0)
      fail(`${stuck.rows[0]?.n} sessions stayed idle in transaction through a ${BLACKHOLE_MS / 1000} s blackhole`);

    const stats = await delivering;
    note(`provider done: ${stats.acked}/${stats.jobs} deliveries acknowledged`);
    for (const receiver of receivers) receiver.child.kill('SIGTERM');
    const exits = await Promise.all(receivers.map((receiver) => receiver.exited));
    exits.forEach((exit, i) => {
      if (exit.code !== 0)
        fail(
          `receiver r${i} did not drain and exit cleanly (code ${exit.code}, signal ${exit.signal}): ${receivers[i]?.output.stderr.slice(-1500) ?? ''}`,
        );
    });
    fake.child.kill('SIGTERM');
    await fake.exited;

    const counts = new Map<string, number>();
    for (const row of (
      await pool.query<{ event_id: string; n: number }>('SELECT event_id, count(*)::int AS n FROM soak_effects GROUP BY event_id')
    ).rows) {
      counts.set(row.event_id, row.n);
    }
    const ids = Array.from({ length: EVENTS }, (_, i) => soakEvent(i).eventId);
    const lost = ids.filter((id) => !counts.has(id));
    const doubled = ids.filter((id) => (counts.get(id) ?? 0) > 1);
    const unknown = [...counts.keys()].filter((id) => !ids.includes(id));
    const idleInTransaction =
      (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'`)).rows[0]
        ?.n ?? -1;
    const locks =
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.pid <> pg_backend_pid() AND l.locktype IN ('advisory', 'tuple', 'transactionid')`,
        )
      ).rows[0]?.n ?? -1;
    if (idleInTransaction !== 0) fail(`${idleInTransaction} sessions idle in transaction at the end`);
    if (locks !== 0) fail(`${locks} locks still held at the end`);
    const notDone =
      (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM checkout_webhook_events WHERE state <> 'done'`)).rows[0]?.n ?? -1;
    const injected = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('F ')).length;
    if (stats.unacked.length > 0)
      fail(`${stats.unacked.length} deliveries never acknowledged, e.g. ${JSON.stringify(stats.unacked.slice(0, 5))}`);
    if (lost.length > 0) fail(`${lost.length} events lost (no effect row), e.g. ${lost.slice(0, 10).join(', ')}`);
    if (doubled.length > 0) fail(`${doubled.length} events with more than one effect row, e.g. ${doubled.slice(0, 10).join(', ')}`);
    if (unknown.length > 0) fail(`effect rows for ids never sent: ${unknown.slice(0, 5).join(', ')}`);
    if (notDone !== 0) fail(`${notDone} event rows not marked done at the end`);
    if (injected === 0) fail('no onEvent failure was injected: the chaos did not happen');

    console.log(`
soak (PostgreSQL, transactional): ${EVENTS} events, ${RECEIVERS} receivers, one PostgreSQL server, built package${FROM_SRC ? ' (SDK_FROM_SRC: src/)' : ' (dist/)'}
  wall time         ${((Date.now() - started) / 1000).toFixed(1)} s
  deliveries        ${stats.jobs} (${stats.jobs - EVENTS} duplicates), ${stats.attempts} attempts
  responses         ${Object.entries(stats.statuses)
    .sort()
    .map(([k, v]) => `${k}×${v}`)
    .join(' ')}
  acknowledged      ${stats.acked}/${stats.jobs}
  onEvent failures  ${injected} injected (their effect rows rolled back)
  effect rows       ${[...counts.values()].reduce((a, b) => a + b, 0)} for ${counts.size} events: ${lost.length} lost, ${doubled.length} doubled
  faults            SIGKILL r1 mid-run, PostgreSQL restarted (fast, immediate), pg_terminate_backend, proxy reset, ${BLACKHOLE_MS / 1000} s blackhole
  at the end        ${idleInTransaction} sessions idle in transaction, ${locks} locks held, receivers exited ${exits.map((exit) => exit.code).join(',')}`);
  } catch (error) {
    fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    killAll();
    await proxy?.close().catch(() => undefined);
    await pool?.end().catch(() => undefined);
    await server?.stop().catch((error: unknown) => fail(`stopping PostgreSQL: ${String(error)}`));
    clearTimeout(hardStop);
    rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.error(`\nsoak (PostgreSQL): FAIL\n- ${failures.join('\n- ')}`);
    return 1;
  }
  console.log('\nsoak (PostgreSQL): PASS');
  return 0;
}
