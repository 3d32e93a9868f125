/**
 * `npm run test:chaos`: 20,000 status reads at 64 concurrent through a real CheckoutClient (the
 * BUILT package, dist/) against a fault-injecting server on 127.0.0.1, then checks that
 *
 * - every failure the client surfaced is a typed `CheckoutError` that an injected fault explains
 *   (or the caller's own abort reason), and every success returned the record asked for;
 * - the client broke no rule of the API (no secret on business calls, no Bearer on the exchange);
 * - no unhandled rejection happened, and the load process exited by itself (no leaked timer or
 *   socket) within a few seconds of its last call;
 * - the faults really happened (each kind at least once), so the run cannot pass vacuously.
 *
 * Exits non-zero on any violation. Everything is bounded: each child has a hard time limit and is
 * killed by pid on exit. Env: CHAOS_SEED, CHAOS_CALLS, CHAOS_CONCURRENCY; SDK_FROM_SRC=1 runs against src/
 * instead of dist/ (for debugging only).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertFreshBuild, FROM_SRC, killAll, quantile, ROOT, spawnTs } from './children.js';
import { explain } from './explain.js';
import type { FaultReport } from './fault-server.js';
import type { LoadResult } from './load.js';

const CALLS = Number(process.env.CHAOS_CALLS ?? 20_000);
const CONCURRENCY = Number(process.env.CHAOS_CONCURRENCY ?? 64);
const PARTNER_ID = 'chaos-partner';
const TIMEOUT_MS = 1000;
const MAX_ATTEMPTS = 3; // maxRetries 2
const LOAD_LIMIT_MS = 110_000;
const EXIT_WITHIN_MS = 6000;

const failures: string[] = [];
const fail = (message: string) => failures.push(message);
const hardStop = setTimeout(() => {
  process.stderr.write('FAIL: the chaos run exceeded its 150 s hard limit\n');
  killAll();
  process.exit(1);
}, 150_000);

const dir = mkdtempSync(join(tmpdir(), 'chaos-'));
try {
  if (!FROM_SRC) assertFreshBuild();
  const secret = `chaos-secret-${randomUUID()}`;
  const server = spawnTs(join(ROOT, 'scripts/chaos/fault-server.ts'), [], {
    name: 'fault-server',
    timeoutMs: 140_000,
    ipc: true,
    env: { CHAOS_PARTNER_ID: PARTNER_ID, CHAOS_PARTNER_SECRET: secret },
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the fault server did not start within 20 s')), 20_000);
    server.child.on('message', (m: { type?: string; url?: string }) => {
      if (m.type === 'ready' && m.url) {
        clearTimeout(timer);
        resolve(m.url);
      }
    });
    void server.exited.then(() => reject(new Error(`the fault server exited early: ${server.output.stderr}`)));
  });

  const resultFile = join(dir, 'load.json');
  let doneAt = 0;
  const started = Date.now();
  server.child.send({ type: 'start' });
  const load = spawnTs(join(ROOT, 'scripts/chaos/load.ts'), [], {
    name: 'load',
    timeoutMs: LOAD_LIMIT_MS,
    env: {
      CHAOS_URL: url,
      CHAOS_PARTNER_ID: PARTNER_ID,
      CHAOS_PARTNER_SECRET: secret,
      CHAOS_CALLS: String(CALLS),
      CHAOS_CONCURRENCY: String(CONCURRENCY),
      CHAOS_TIMEOUT_MS: String(TIMEOUT_MS),
      CHAOS_RESULT: resultFile,
      CHAOS_EXIT_WITHIN_MS: String(EXIT_WITHIN_MS),
    },
    onLine: (line) => {
      if (line === 'LOAD-DONE') doneAt = Date.now();
    },
  });
  const exit = await load.exited;
  const exitedAfterMs = doneAt === 0 ? undefined : Date.now() - doneAt;
  if (exit.timedOut) fail(`the load did not finish within ${LOAD_LIMIT_MS} ms`);
  if (exit.code !== 0) fail(`the load exited with code ${exit.code} (signal ${exit.signal}): ${load.output.stderr.trim().slice(-2000)}`);

  const report = await new Promise<FaultReport>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the fault server did not report within 10 s')), 10_000);
    server.child.once('message', (m: { type?: string; report?: FaultReport }) => {
      if (m.type === 'report' && m.report) {
        clearTimeout(timer);
        resolve(m.report);
      }
    });
    server.child.send({ type: 'report' });
  });
  server.child.kill('SIGKILL');
  await server.exited;

  const result = JSON.parse(readFileSync(resultFile, 'utf8')) as LoadResult;
  if (!result.resolved.endsWith('/dist/index.js') && !FROM_SRC) {
    fail(`the load imported ${result.resolved}, not dist/`);
  }
  for (const u of result.unhandled) fail(u);
  for (const v of report.violations.slice(0, 10)) fail(`API rule broken: ${v}`);

  // every call accounted for and explained
  const explained = new Map<string, number>();
  let missing = 0;
  let unexplained = 0;
  for (let i = 0; i < CALLS; i++) {
    const call = result.calls[i];
    if (!call) {
      missing++;
      continue;
    }
    const reason = explain(call, report, MAX_ATTEMPTS);
    if (reason === undefined) {
      if (unexplained++ < 10) {
        fail(
          `unexplained outcome of ${JSON.stringify(call.id)}: ${JSON.stringify(call.error ?? call)}; served ${JSON.stringify(report.calls[call.id] ?? [])}`,
        );
      }
      continue;
    }
    explained.set(reason, (explained.get(reason) ?? 0) + 1);
  }
  if (missing > 0) fail(`${missing} calls left no record`);
  if (unexplained > 10) fail(`… and ${unexplained - 10} more unexplained outcomes`);

  // the faults really happened
  const served = new Map<string, number>();
  for (const outcomes of Object.values(report.calls)) for (const o of outcomes) served.set(o, (served.get(o) ?? 0) + 1);
  for (const kind of ['500', '502', '503', '429', 'reset', 'slow', '401']) {
    if (!served.get(kind)) fail(`no "${kind}" was served: the chaos did not happen`);
  }
  const exchangeFailures = report.exchanges.filter((x) => x.outcome !== 'ok').length;
  if (report.outages.length === 0 || exchangeFailures === 0) fail('no token exchange failed: the outage did not happen');

  const attempts = [...served.values()].reduce((a, b) => a + b, 0);
  const reached = Object.keys(report.calls).length;
  const reauths = Object.values(report.calls).filter((o) => o.slice(0, -1).includes('401')).length;
  const recorded = result.calls.filter((c) => c !== null);
  const okCalls = recorded.filter((c) => c.ok);
  const failed = recorded.filter((c) => !c.ok);
  const latencies = recorded.map((c) => c.latencyMs).sort((a, b) => a - b);
  const okLatencies = okCalls.map((c) => c.latencyMs).sort((a, b) => a - b);
  const byError = new Map<string, number>();
  for (const c of failed) {
    const label = `${c.error?.name}${c.error?.status ? ` ${c.error.status}` : ''}${c.error?.message.includes('POST /auth/token') ? ' (exchange)' : ''}`;
    byError.set(label, (byError.get(label) ?? 0) + 1);
  }
  if (exitedAfterMs === undefined || exitedAfterMs > EXIT_WITHIN_MS) {
    fail(`the load did not exit by itself within ${EXIT_WITHIN_MS} ms of its last call`);
  }

  const f = (n: number) => n.toFixed(1);
  console.log(`
chaos: ${CALLS} status reads at ${CONCURRENCY} concurrent, CheckoutClient from ${result.resolved.replace(`file://${ROOT}/`, '')}
  client: timeoutMs ${TIMEOUT_MS}, maxRetries ${MAX_ATTEMPTS - 1}; seed ${process.env.CHAOS_SEED ?? '0x5eed'}
  wall time           ${(result.wallMs / 1000).toFixed(1)} s (whole run ${((Date.now() - started) / 1000).toFixed(1)} s); load exited ${exitedAfterMs ?? '?'} ms after its last call
  calls               ${CALLS}: ${okCalls.length} ok, ${failed.length} failed (${recorded.filter((c) => c.aborted).length} aborted by the caller)
  business attempts   ${attempts} for ${reached} calls that reached the server: ${attempts - reached} retries, of which ${reauths} re-auth after a 401
  served              ${[...served].map(([k, v]) => `${k}×${v}`).join(' ')}
  token exchanges     ${report.exchanges.length} attempts, ${report.tokensIssued} tokens issued, ${exchangeFailures} failed; ${report.revocations.length} revocations; ${report.outages.length} exchange outages
  failures surfaced   ${[...byError].map(([k, v]) => `${k}×${v}`).join(', ') || 'none'}
  explained as        ${
    [...explained]
      .filter(([k]) => k !== 'ok')
      .map(([k, v]) => `${k}×${v}`)
      .join(', ') || 'n/a'
  }
  latency (all)       p50 ${f(quantile(latencies, 0.5))} ms, p99 ${f(quantile(latencies, 0.99))} ms, max ${f(latencies.at(-1) ?? NaN)} ms
  latency (ok)        p50 ${f(quantile(okLatencies, 0.5))} ms, p99 ${f(quantile(okLatencies, 0.99))} ms
  unhandled           ${result.unhandled.length}; API rule violations ${report.violations.length}; unexplained ${unexplained}`);
} catch (error) {
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  killAll();
  rmSync(dir, { recursive: true, force: true });
  clearTimeout(hardStop);
}

if (failures.length > 0) {
  console.error(`\nchaos: FAIL\n- ${failures.join('\n- ')}`);
  process.exitCode = 1;
} else {
  console.log('\nchaos: PASS');
}
