import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import pg from 'pg';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

// Issue 23, one clock, with the tracker itself: three tracker processes on one transactional
// PostgresStatusStore, their wall clocks 5 minutes apart, two of them stepping an hour (forward,
// back) in the middle of a lease. Every change is handed to onChange once across the fleet, and the
// records are all handled (the schedule does not stop on the host whose clock went back).

const ROOT = join(import.meta.dirname, '..', '..');
const COUNT = 30;
let server: PostgresServer;
let pool: pg.Pool;
beforeAll(async () => {
  server = await startPostgres();
  pool = new pg.Pool({ connectionString: server.url, max: 4 });
  pool.on('error', () => undefined);
});
afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

/** Runs a tracker child with its Date `skewMs` off, stepped by `stepMs` in its first onChange; resolves with its onChange calls. */
async function member(table: string, effects: string, owner: string, skewMs: number, stepMs: number): Promise<Array<{ call: string; owner: string }>> {
  const child = spawn(
    process.execPath,
    ['--import', join(ROOT, 'test', 'helpers', 'skewed-clock.mjs'), '--import', 'tsx', join(import.meta.dirname, 'fixtures', 'skewed-tracker.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
        CLOCK_SKEW_MS: String(skewMs),
        STEP_MS: String(stepMs),
        PG_URL: server.url,
        TABLE: table,
        EFFECTS: effects,
        OWNER: owner,
        COUNT: String(COUNT),
        WORK_MS: '500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = await once(child, 'exit');
  expect(code, stderr).toBe(0);
  expect(stdout, stderr).toContain('DONE');
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { call: string; owner: string });
}

it('three tracker processes 5 minutes apart, stepping an hour forward and back mid-lease: every change once', { timeout: 90_000 }, async () => {
  const table = `tracker_clock_${process.pid}`;
  const effects = `tracker_clock_effects_${process.pid}`;
  const store = new PostgresStatusStore({ pool, table, transactional: true });
  await store.ensureSchema();
  await pool.query(`CREATE TABLE "${effects}" (external_id text NOT NULL, status text, owner text NOT NULL)`);
  const ids = Array.from({ length: COUNT }, (_, i) => `o-${i}`);
  for (const id of ids) await store.watch('order', id);

  const fleet = await Promise.all([
    member(table, effects, 'ahead', 5 * 60_000, 60 * 60_000),
    member(table, effects, 'behind', -5 * 60_000, -60 * 60_000),
    member(table, effects, 'true', 0, 0),
  ]);

  const calls = fleet.flat();
  // the fleet shared the work (otherwise it proves nothing about skew between members)
  expect(fleet.filter((calls) => calls.length > 0).length).toBeGreaterThanOrEqual(2);
  expect(calls.map((call) => call.call).sort()).toEqual([...ids].sort());
  const rows = (await pool.query(`SELECT external_id, status, count(*)::int AS n FROM "${effects}" GROUP BY 1, 2`)).rows as { status: string; n: number }[];
  expect(rows).toHaveLength(COUNT);
  expect(rows.every((row) => row.n === 1 && row.status === 'Settled')).toBe(true);
  expect(await store.countWatched()).toBe(0);
  for (const id of ids) expect((await store.get('order', id))?.handled?.status).toBe('Settled');
});
