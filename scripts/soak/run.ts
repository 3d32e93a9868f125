/**
 * `npm run test:soak`: 4 webhook receivers (node:http + createWebhookHandler + RedisEventStore,
 * one shared prefix) on one real redis-server (append-only file on), confirming through the fake
 * checkout service, while a simulated provider delivers SOAK_EVENTS (10,000) events with 30%
 * duplicates (concurrent, late, to another receiver), out of order, retrying until 2xx; 10% of
 * onEvent calls fail. Mid-run: one receiver is stopped with SIGTERM (it drains and exits), another
 * SIGKILLed, both restarted, and Redis is restarted once. Then the receivers' append-only log is
 * read back: no event lost, every delivery acknowledged, each event handled exactly once except
 * those in flight at the SIGKILL (counted). Exits non-zero on any violation.
 *
 * Bounded: a 235 s hard limit for the whole run, a time limit on every child, every child killed
 * by pid on exit (the redis-server by the pid in its pidfile), also on failure.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertFreshBuild, FROM_SRC, killAll, ROOT, spawnTs, type BoundedChild } from '../chaos/children.js';
import { Provider, type ProviderStats } from './provider.js';
import { freePort, startSoakRedis, type SoakRedis } from './redis.js';
import { checkLog, type KillWindow } from './verify.js';

// `npm run test:soak -- --postgres` (or SOAK_STORE=postgres): the PostgreSQL mode, in postgres-run.ts
if (process.argv.includes('--postgres') || process.env.SOAK_STORE === 'postgres') {
  const { runPostgresSoak } = await import('./postgres-run.js');
  process.exit(await runPostgresSoak());
}

const EVENTS = Number(process.env.SOAK_EVENTS ?? 10_000);
const RECEIVERS = 4;
const HARD_LIMIT_MS = 235_000;
const started = Date.now();
const failures: string[] = [];
const fail = (message: string) => failures.push(message);
const note = (message: string) => console.log(`[soak +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

let redis: SoakRedis | undefined;
const killRedis = () => {
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
  process.stderr.write(`FAIL: the soak exceeded its ${HARD_LIMIT_MS / 1000} s hard limit\n`);
  killAll();
  killRedis();
  process.exit(1);
}, HARD_LIMIT_MS);

/** Resolves with the first stdout line matching `pattern`, or rejects after `ms` or if the child exits. */
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

const dir = mkdtempSync(join(tmpdir(), 'soak-'));
const logFile = join(dir, 'handled.log');
const secret = `whsec-soak-${randomUUID()}`;

interface Receiver {
  id: string;
  port: number;
  proc: BoundedChild;
  lines: string[];
}

try {
  if (!FROM_SRC) assertFreshBuild(['index.js', 'webhooks.node.js', 'redis.js', 'testing.js']);
  mkdirSync(join(dir, 'redis'));
  redis = await startSoakRedis(join(dir, 'redis'));
  note(`redis-server pid ${redis.pid()} on ${redis.url} (appendonly yes)`);

  const fakeLines: string[] = [];
  const fake = spawnTs(join(ROOT, 'scripts/soak/fake-service.ts'), [], {
    name: 'fake',
    timeoutMs: HARD_LIMIT_MS,
    ipc: true,
    env: { SOAK_EVENTS: String(EVENTS) },
    onLine: (line) => fakeLines.push(line),
  });
  const fakeUrl = (await waitForLine(fake, fakeLines, /^FAKE-URL (\S+)$/, 30_000, 'the fake service'))[1] as string;
  note(`fake checkout service on ${fakeUrl}`);

  const ports = await Promise.all(Array.from({ length: RECEIVERS }, () => freePort()));
  const receivers: Receiver[] = [];
  const startReceiver = async (index: number): Promise<Receiver> => {
    const id = `r${index}`;
    const port = ports[index] as number;
    const lines: string[] = [];
    const proc = spawnTs(join(ROOT, 'scripts/soak/receiver.ts'), [], {
      name: id,
      timeoutMs: HARD_LIMIT_MS,
      env: {
        SOAK_RECEIVER: id,
        SOAK_PORT: String(port),
        SOAK_FAIL_RATE: '0.1',
        SOAK_LOG: logFile,
        SOAK_REDIS_URL: redis?.url,
        SOAK_FAKE_URL: fakeUrl,
        SOAK_WEBHOOK_SECRET: secret,
      },
      onLine: (line) => lines.push(line),
    });
    await waitForLine(proc, lines, /^READY /, 30_000, `receiver ${id}`);
    const receiver = { id, port, proc, lines };
    receivers[index] = receiver;
    return receiver;
  };
  await Promise.all(Array.from({ length: RECEIVERS }, (_, i) => startReceiver(i)));
  note(`${RECEIVERS} receivers ready on ports ${ports.join(', ')}`);

  const provider = new Provider({
    events: EVENTS,
    receivers: ports.map((port) => `http://127.0.0.1:${port}`),
    secret,
    concurrency: 48,
    deadline: started + HARD_LIMIT_MS - 40_000,
    seed: Number(process.env.SOAK_SEED ?? 0xc0ffee),
  });
  const delivering = provider.run();
  // the faults, each once the provider is that far along
  const until = (fraction: number, what: string) => provider.reached(fraction, what);
  const phases = { sigterm: { exit: null as number | null, drained: false }, kill: undefined as KillWindow | undefined, redisRestartMs: 0 };

  await until(0.2, 'the SIGTERM');
  const gentle = receivers[1] as Receiver;
  note(`SIGTERM ${gentle.id} (pid ${gentle.proc.child.pid}): it drains and exits`);
  gentle.proc.child.kill('SIGTERM');
  const gentleExit = await gentle.proc.exited;
  phases.sigterm = { exit: gentleExit.code, drained: gentle.lines.includes(`DRAINED ${gentle.id}`) };
  note(`${gentle.id} exited with code ${gentleExit.code}${phases.sigterm.drained ? ' after draining' : ''}`);
  await sleep(1500);
  await startReceiver(1);
  note('r1 restarted');

  await until(0.4, 'the SIGKILL');
  const victim = receivers[2] as Receiver;
  const victimPid = victim.proc.child.pid as number;
  note(`SIGKILL ${victim.id} (pid ${victimPid})`);
  phases.kill = { pid: victimPid, at: Date.now(), inFlightMs: 1000 }; // onEvent's tail and complete() take far less
  victim.proc.child.kill('SIGKILL');
  await victim.proc.exited;
  await sleep(1500);
  await startReceiver(2);
  note('r2 restarted');

  await until(0.6, 'the Redis restart');
  const oldPid = redis.pid();
  const restartAt = Date.now();
  await redis.stop();
  await redis.start();
  phases.redisRestartMs = Date.now() - restartAt;
  note(`redis-server restarted (pid ${oldPid} -> ${redis.pid()}) in ${phases.redisRestartMs} ms, AOF replayed`);

  const stats: ProviderStats = await delivering;
  note(`provider done: ${stats.acked}/${stats.jobs} deliveries acknowledged`);

  // graceful stop of everything, then read the log back
  for (const receiver of receivers) receiver.proc.child.kill('SIGTERM');
  const exits = await Promise.all(receivers.map((r) => r.proc.exited));
  exits.forEach((exit, i) => {
    if (exit.code !== 0) fail(`receiver r${i} did not drain and exit cleanly at the end (code ${exit.code}, signal ${exit.signal})`);
  });
  fake.child.kill('SIGTERM');
  await fake.exited;
  await redis.stop();

  const check = checkLog(readFileSync(logFile, 'utf8'), EVENTS, phases.kill);
  if (stats.unacked.length > 0)
    fail(`${stats.unacked.length} deliveries never acknowledged, e.g. ${JSON.stringify(stats.unacked.slice(0, 5))}`);
  if (check.lost.length > 0) fail(`${check.lost.length} events lost, e.g. ${check.lost.slice(0, 10).join(', ')}`);
  if (check.unexplained.length > 0)
    fail(
      `${check.unexplained.length} events handled more than once without a SIGKILL to explain it: ${check.unexplained.slice(0, 5).join('; ')}`,
    );
  if (check.twiceAfterFailedComplete.length > 0) {
    fail(
      `${check.twiceAfterFailedComplete.length} events handled twice because complete() failed while Redis restarted: ${check.twiceAfterFailedComplete.slice(0, 5).join(', ')}`,
    );
  }
  if (check.wrongConfirmed.length > 0)
    fail(`${check.wrongConfirmed.length} events with the wrong confirmed flag, e.g. ${check.wrongConfirmed.slice(0, 5).join(', ')}`);
  if (check.unknownIds.length > 0) fail(`handled ids that were never sent: ${check.unknownIds.slice(0, 5).join(', ')}`);
  if (phases.sigterm.exit !== 0 || !phases.sigterm.drained)
    fail(`the SIGTERMed receiver did not drain and exit 0 (code ${phases.sigterm.exit})`);
  if (check.injectedFailures === 0) fail('no onEvent failure was injected: the chaos did not happen');

  console.log(`
soak: ${EVENTS} events, ${RECEIVERS} receivers, one redis-server (AOF), built package${FROM_SRC ? ' (SDK_FROM_SRC: src/)' : ' (dist/)'}
  wall time             ${((Date.now() - started) / 1000).toFixed(1)} s
  deliveries            ${stats.jobs} (${stats.jobs - EVENTS} duplicates: ${Object.entries(stats.duplicates)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}), ${stats.attempts} attempts
  responses             ${Object.entries(stats.statuses)
    .sort()
    .map(([k, v]) => `${k}×${v}`)
    .join(' ')}
  acknowledged          ${stats.acked}/${stats.jobs}
  onEvent               ${check.handledLines} handled (${check.distinctHandled} distinct events), ${check.injectedFailures} injected failures, ${check.completeFailures} complete() failures
  lost                  ${check.lost.length}
  handled twice         ${check.twiceAtKill.length} in flight at the SIGKILL (allowed), ${check.twiceAfterFailedComplete.length} after a failed complete(), ${check.unexplained.length} unexplained
  confirmed flag wrong  ${check.wrongConfirmed.length}
  faults                SIGTERM r1 (drained, exit ${phases.sigterm.exit}), SIGKILL r2 (pid ${phases.kill.pid}), Redis restart ${phases.redisRestartMs} ms`);
} catch (error) {
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  killAll();
  if (redis?.pid() !== undefined) await redis.stop().catch(() => killRedis());
  clearTimeout(hardStop);
  if (failures.length === 0 || process.env.SOAK_KEEP_DIR !== '1') rmSync(dir, { recursive: true, force: true });
  else console.error(`kept ${dir}`);
}

if (failures.length > 0) {
  console.error(`\nsoak: FAIL\n- ${failures.join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log('\nsoak: PASS');
}
