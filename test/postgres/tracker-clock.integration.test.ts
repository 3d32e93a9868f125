import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { expect, it } from 'vitest';
import { usePostgres } from '../helpers/postgres-pool.js';
import { runTrackerMember } from './tracker-member.js';

// Issue 23, one clock, with the tracker itself: three tracker processes on one transactional
// PostgresStatusStore, their wall clocks 5 minutes apart, two of them stepping an hour (forward,
// back) in the middle of a lease. Every change is handed to onChange once across the fleet, and the
// records are all handled (the schedule does not stop on the host whose clock went back).

const COUNT = 30;
const db = usePostgres({ max: 4 });

it(
  'three tracker processes 5 minutes apart, stepping an hour forward and back mid-lease: every change once',
  { timeout: 90_000 },
  async () => {
    const table = `tracker_clock_${process.pid}`;
    const effects = `tracker_clock_effects_${process.pid}`;
    const store = new PostgresStatusStore({ pool: db.pool, table, transactional: true });
    await store.ensureSchema();
    await db.pool.query(`CREATE TABLE "${effects}" (external_id text NOT NULL, status text, owner text NOT NULL)`);
    const ids = Array.from({ length: COUNT }, (_, i) => `o-${i}`);
    for (const id of ids) await store.watch('order', id);

    const common = { url: db.server.url, table, effects, count: COUNT };
    const fleet = await Promise.all([
      runTrackerMember({ ...common, owner: 'ahead', skewMs: 5 * 60_000, stepMs: 60 * 60_000 }),
      runTrackerMember({ ...common, owner: 'behind', skewMs: -5 * 60_000, stepMs: -60 * 60_000 }),
      runTrackerMember({ ...common, owner: 'true' }),
    ]);

    for (const member of fleet) {
      expect(member.exitCode, member.stderr).toBe(0);
      expect(member.failures).toEqual([]); // no lease lost, no store failure
    }
    const calls = fleet.flatMap((member) => member.calls);
    // the fleet shared the work (otherwise it proves nothing about skew between members)
    expect(fleet.filter((member) => member.calls.length > 0).length).toBeGreaterThanOrEqual(2);
    expect(calls.map((call) => call.call).sort()).toEqual([...ids].sort());
    const rows = (await db.pool.query(`SELECT external_id, status, count(*)::int AS n FROM "${effects}" GROUP BY 1, 2`)).rows as {
      status: string;
      n: number;
    }[];
    expect(rows).toHaveLength(COUNT);
    expect(rows.every((row) => row.n === 1 && row.status === 'Settled')).toBe(true);
    expect(await store.countWatched()).toBe(0);
    for (const id of ids) expect((await store.get('order', id))?.handled?.status).toBe('Settled');
  },
);
