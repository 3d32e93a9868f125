import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { expect, it } from 'vitest';
import { usePostgres } from '../helpers/postgres-pool.js';

// Issue 23, one clock: fleet members whose wall clocks are 5 minutes apart, and one whose clock
// steps an hour mid-lease, share one PostgreSQL. Leases and due times are the database's, so every
// change is handed to onChange once, and every claim's time is the database's, not a member's.

const ROOT = join(import.meta.dirname, '..', '..');
const db = usePostgres({ max: 4 });

interface Call {
  call: string;
  owner: string;
  claimedAt: number;
  wallClock: number;
}

/** Runs a claimer child with its Date `skewMs` off (and stepped by `stepMs` mid-lease); resolves with its onChange calls. */
async function member(table: string, effects: string, owner: string, skewMs: number, stepMs = 0): Promise<Call[]> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      join(ROOT, 'test', 'helpers', 'skewed-clock.mjs'),
      '--import',
      'tsx',
      join(import.meta.dirname, 'fixtures', 'skewed-claimer.ts'),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
        CLOCK_SKEW_MS: String(skewMs),
        STEP_MS: String(stepMs),
        PG_URL: db.server.url,
        TABLE: table,
        EFFECTS: effects,
        OWNER: owner,
        // long enough to outlive every onChange, short enough that a member's step of 5 minutes or
        // an hour would put it far in the past on the member's own clock
        LEASE_MS: '20000',
        WORK_MS: '150',
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
  expect(stdout).toContain('DONE');
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Call);
}

it(
  'three members 5 minutes apart, one stepping an hour ahead mid-lease: every change once, every claim on the database clock',
  { timeout: 90_000 },
  async () => {
    const table = `clock_${process.pid}`;
    const effects = `clock_effects_${process.pid}`;
    const store = new PostgresStatusStore({ pool: db.pool, table, transactional: true });
    await store.ensureSchema();
    await db.pool.query(`CREATE TABLE "${effects}" (external_id text NOT NULL, owner text NOT NULL)`);
    const ids = Array.from({ length: 40 }, (_, i) => `o-${i}`);
    for (const id of ids) await store.watch('order', id);
    const before = (await db.pool.query<{ t: number }>(`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t`)).rows[0]!
      .t;

    const fleet = await Promise.all([
      member(table, effects, 'ahead', 5 * 60_000, 60 * 60_000), // 5 minutes ahead, then an hour more mid-lease
      member(table, effects, 'behind', -5 * 60_000),
      member(table, effects, 'true', 0),
    ]);

    const after = (await db.pool.query<{ t: number }>(`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t`)).rows[0]!
      .t;
    const calls = fleet.flat();
    // every change handed to onChange once across the fleet: no lease taken while another was live
    expect(calls.map((call) => call.call).sort()).toEqual([...ids].sort());
    const effectRows = (await db.pool.query(`SELECT external_id, count(*)::int AS n FROM "${effects}" GROUP BY 1`)).rows as { n: number }[];
    expect(effectRows).toHaveLength(40);
    expect(effectRows.every((row) => row.n === 1)).toBe(true);
    // the skew is real in the members…
    const skewOf = (owner: string) => calls.filter((call) => call.owner === owner).map((call) => call.wallClock - call.claimedAt);
    expect(skewOf('behind').every((skew) => skew < -4 * 60_000)).toBe(true);
    expect(skewOf('ahead').every((skew) => skew > 4 * 60_000)).toBe(true);
    // …and every claim's time is the database's, whoever claimed
    for (const call of calls) {
      expect(call.claimedAt).toBeGreaterThanOrEqual(before);
      expect(call.claimedAt).toBeLessThanOrEqual(after);
    }
    expect(fleet.every((member) => member.length > 0)).toBe(true);
    expect(await store.countWatched()).toBe(0);
  },
);
