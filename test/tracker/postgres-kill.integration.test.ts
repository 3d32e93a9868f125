import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { createStatusTracker } from 'checkout-partner-sdk/tracker';
import { expect, it } from 'vitest';
import { usePostgres } from '../helpers/postgres-pool.js';
import { eventually } from '../helpers/eventually.js';
import { fakeService } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const db = usePostgres({ max: 8 });

it('a tracker process SIGKILLed inside onChange leaves no effect; another process is handed the change, same id, and writes it once', async () => {
  const table = `kill_status_${process.pid}`;
  const effects = `kill_effects_${process.pid}`;
  await db.pool.query(`CREATE TABLE "${effects}" (external_id text NOT NULL, status text)`);
  const store = new PostgresStatusStore({ pool: db.pool, table, transactional: true });
  await store.ensureSchema();

  // the child runs from src/ through tsx's loader (the root tsconfig's paths), in this very node
  // process (the tsx CLI would put a wrapper process between: a SIGKILL would not reach the tracker)
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'pg-tracker-child.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
      PG_URL: db.server.url,
      TABLE: table,
      EFFECTS: effects,
      K_ID: 'k-1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  try {
    const inside = await eventually(async () => stdout.includes('IN-ONCHANGE'), 20_000);
    expect(inside, stderr).toBe(true);
    expect(stdout).toContain(`IN-ONCHANGE ${child.pid}`); // the tracker itself, not a wrapper
    // the effect row is written, not committed: the child is killed mid-onChange
    child.kill('SIGKILL');
    await exited;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  const effectRows = async () =>
    (await db.pool.query<{ status: string | null; n: number }>(`SELECT status, count(*)::int AS n FROM "${effects}" GROUP BY 1`)).rows;
  // PostgreSQL rolled the dead session's transaction back: no effect, no handled status
  expect(
    await eventually(
      async () =>
        (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'`))
          .rows[0]!.n === 0,
      5_000,
    ),
  ).toBe(true);
  expect(await effectRows()).toEqual([]);
  expect((await store.get('order', 'k-1'))?.handled).toBeUndefined();

  const { fake, client } = fakeService();
  fake.setOrder({ externalId: 'k-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't' } });
  const ids: string[] = [];
  const survivor = createStatusTracker({
    client,
    store,
    leaseMs: 1_000,
    claimIntervalMs: 10,
    onChange: async ({ id, externalId, status, transaction }) => {
      ids.push(id);
      await transaction.query(`INSERT INTO "${effects}" (external_id, status) VALUES ($1, $2)`, [externalId, status]);
    },
  });
  survivor.start();
  try {
    // the dead process's lease runs out (leaseMs), and the change is handed over here
    expect(await eventually(async () => (await store.get('order', 'k-1'))?.watching === false, 10_000)).toBe(true);
  } finally {
    await survivor.drain({ timeoutMs: 3_000 });
  }
  // the killed process was handed this very change: the same id to send downstream
  expect(ids).toEqual([/IN-ONCHANGE \d+ (\S+)/.exec(stdout)?.[1]]);
  expect(await effectRows()).toEqual([{ status: 'Settled', n: 1 }]);
});
