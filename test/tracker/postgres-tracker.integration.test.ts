import pg from 'pg';
import { PostgresStatusStore, type PostgresPoolLike } from 'checkout-partner-sdk/postgres';
import { playTimeline, type TimelineStep } from 'checkout-partner-sdk/testing';
import { createStatusTracker, type StatusChange, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { usePostgres } from '../helpers/postgres-pool.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { drivers, type Connection } from '../postgres/drivers.js';
import { eventually } from '../helpers/eventually.js';
import { fakeService } from './helpers.js';
import type { LogEntry } from 'checkout-partner-sdk';

type TrackerLogEntry = Extract<LogEntry, { event: `tracker.${string}` }>;

// `database.pool`: the test's own connections (tables, faults), apart from the stores'
const database = usePostgres({ max: 2 });

const FAST = { fastIntervalMs: 40, fastForMs: 600_000, maxIntervalMs: 1_000, retryDelayMs: 40, jitter: 0.2 };
let tables = 0;
const uniqueTable = (prefix: string): string => `${prefix}_${process.pid}_${++tables}`;
const trackers: StatusTracker[] = [];
afterEach(async () => {
  await Promise.all(trackers.splice(0).map((tracker) => tracker.drain({ timeoutMs: 3_000 })));
});

/** Thirty orders going Pending → Processing → Settled at random times within about 1.5 s. */
function timeline(fake: ReturnType<typeof fakeService>['fake'], count = 30): { ids: string[]; steps: TimelineStep[] } {
  const ids = Array.from({ length: count }, (_, i) => `o-${i}`);
  const steps: TimelineStep[] = [];
  for (const id of ids) {
    fake.setOrder({ externalId: id, currency: id.endsWith('0') ? 'BRZ' : 'USDT', settlement: { status: 'Pending', tradeId: null } });
    const a = Math.floor(Math.random() * 700);
    steps.push({ atMs: a, order: id, patch: { settlement: { status: 'Processing' } } });
    steps.push({ atMs: a + 50 + Math.floor(Math.random() * 700), order: id, patch: { settlement: { status: 'Settled' } } });
  }
  return { ids, steps };
}

describe.each(drivers)('createStatusTracker on a plain PostgresStatusStore with $name', (driver) => {
  let db: Connection;
  beforeAll(() => {
    db = driver.connect(database.server.url);
  });
  afterAll(() => db?.close());

  it('three trackers hand every distinct status of every record to onChange once, in order', async () => {
    const { fake, client } = fakeService();
    const store = new PostgresStatusStore({ pool: db.pool, table: uniqueTable('plain') });
    await store.ensureSchema();
    const changes: StatusChange[] = [];
    const three = Array.from({ length: 3 }, (_, i) =>
      createStatusTracker({
        client,
        store,
        claimIntervalMs: 10,
        leaseMs: 2_000,
        schedule: FAST,
        owner: `p${i}`,
        onChange: (change) => void changes.push(change),
      }),
    );
    trackers.push(...three);
    three.forEach((tracker) => tracker.start());
    const { ids, steps } = timeline(fake);
    for (const [i, id] of ids.entries()) await three[i % 3]!.watchOrder(id);
    await playTimeline(fake, steps).done;
    expect(await eventually(async () => changes.filter((c) => c.status === 'Settled').length === ids.length, 15_000)).toBe(true);
    for (const id of ids) {
      const statuses = changes.filter((c) => c.externalId === id).map((c) => c.status);
      expect(new Set(statuses).size).toBe(statuses.length);
      expect(['Pending', 'Processing', 'Settled'].filter((s) => statuses.includes(s))).toEqual(statuses);
      expect((await store.get('order', id))?.watching).toBe(false);
    }
  });
});

describe('createStatusTracker on a transactional PostgresStatusStore (pg)', () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: database.server.url, max: 20, connectionTimeoutMillis: 2_000 });
    pool.on('error', () => undefined);
  });
  afterAll(() => pool?.end());

  /** A status store on `on` and an effects table with no unique key: a doubled effect would show as two rows. */
  async function setup(on: PostgresPoolLike = pool, options: { transactionTimeoutMs?: number } = {}) {
    const effects = uniqueTable('effects');
    await database.pool.query(`CREATE TABLE "${effects}" (external_id text NOT NULL, status text)`);
    const store = new PostgresStatusStore({ pool: on as pg.Pool, table: uniqueTable('tx'), transactional: true, ...options });
    await store.ensureSchema();
    const effectRows = async () =>
      (await database.pool.query(`SELECT external_id, status, count(*)::int AS n FROM "${effects}" GROUP BY 1, 2 ORDER BY 1, 2`)).rows as {
        external_id: string;
        status: string | null;
        n: number;
      }[];
    return { store, effects, effectRows };
  }

  it('three trackers: each change effect written through transaction exactly once per (record, status), though onChange throws after writing a third of the time', async () => {
    const { fake, client } = fakeService();
    const { store, effects, effectRows } = await setup();
    let calls = 0;
    let thrown = 0;
    const log: TrackerLogEntry[] = [];
    const three = Array.from({ length: 3 }, (_, i) =>
      createStatusTracker({
        client,
        store,
        claimIntervalMs: 10,
        leaseMs: 2_000,
        schedule: FAST,
        owner: `p${i}`,
        logger: (entry) => void log.push(entry),
        onChange: async ({ externalId, status, transaction }) => {
          calls += 1;
          await transaction.query(`INSERT INTO "${effects}" (external_id, status) VALUES ($1, $2)`, [externalId, status]);
          // the write above is rolled back with the turn: the change comes again and is written once
          if (Math.random() < 0.33) {
            thrown += 1;
            throw new Error('partner failure after its write');
          }
        },
      }),
    );
    trackers.push(...three);
    three.forEach((tracker) => tracker.start());
    const { ids, steps } = timeline(fake);
    for (const [i, id] of ids.entries()) await three[i % 3]!.watchOrder(id);
    await playTimeline(fake, steps).done;
    expect(await eventually(async () => (await effectRows()).filter((r) => r.status === 'Settled').length === ids.length, 20_000)).toBe(
      true,
    );
    const rows = await effectRows();
    expect(rows.filter((r) => r.n !== 1)).toEqual([]); // 0 doubled
    for (const id of ids) {
      const statuses = rows.filter((r) => r.external_id === id).map((r) => r.status);
      expect(statuses).toContain('Settled');
      expect(await store.get('order', id)).toMatchObject({ watching: false, handled: { status: 'Settled' } });
    }
    expect(thrown).toBeGreaterThan(0);
    expect(calls).toBe(rows.length + thrown);
    expect(log.filter((e) => e.event === 'tracker.change-failed')).toHaveLength(thrown);
  });

  it('a slow onChange (longer than leaseMs) keeps its record: the heartbeat extends the lease, no other tracker runs it', async () => {
    const { fake, client } = fakeService();
    const { store, effects, effectRows } = await setup(pool, { transactionTimeoutMs: 5_000 });
    fake.setOrder({ externalId: 'slow-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't' } });
    let calls = 0;
    const two = Array.from({ length: 2 }, (_, i) =>
      createStatusTracker({
        client,
        store,
        claimIntervalMs: 10,
        leaseMs: 1_000,
        schedule: FAST,
        owner: `s${i}`,
        onChange: async ({ externalId, status, transaction }) => {
          calls += 1;
          await transaction.query(`INSERT INTO "${effects}" (external_id, status) VALUES ($1, $2)`, [externalId, status]);
          await new Promise((resolve) => setTimeout(resolve, 2_500));
        },
      }),
    );
    trackers.push(...two);
    two.forEach((tracker) => tracker.start());
    await two[0]!.watchOrder('slow-1');
    expect(await eventually(async () => (await store.get('order', 'slow-1'))?.watching === false, 10_000)).toBe(true);
    expect(calls).toBe(1);
    expect(await effectRows()).toEqual([{ external_id: 'slow-1', status: 'Settled', n: 1 }]);
  });

  it('a nudge of a record whose onChange transaction is open is stored at once (the row is not locked), and makes it read again', async () => {
    const { fake, client } = fakeService();
    const { store, effects, effectRows } = await setup();
    fake.setOrder({ externalId: 'n-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't' } });
    let calls = 0;
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let letGo!: () => void;
    const released = new Promise<void>((resolve) => (letGo = resolve));
    const tracker = createStatusTracker({
      client,
      store,
      claimIntervalMs: 10,
      leaseMs: 2_000,
      schedule: FAST,
      onChange: async ({ externalId, status, transaction }) => {
        calls += 1;
        await transaction.query(`INSERT INTO "${effects}" (external_id, status) VALUES ($1, $2)`, [externalId, status]);
        inside();
        await released; // only let go once the nudge below is stored: a nudge that waited for this transaction would never be
      },
    });
    trackers.push(tracker);
    tracker.start();
    await tracker.watchOrder('n-1');
    await entered;
    await tracker.nudge('order', 'n-1', { event: { eventId: 'e-late', type: 'otc.trade.settled', tradeId: 't' } });
    letGo();
    // the nudge came during the turn: the record is read once more (same status, nothing handed), then its watch ends
    expect(await eventually(async () => (await store.get('order', 'n-1'))?.watching === false, 10_000)).toBe(true);
    expect(calls).toBe(1);
    expect(await effectRows()).toEqual([{ external_id: 'n-1', status: 'Settled', n: 1 }]);
  });

  it('a lease that passes to another process while onChange runs: its writes roll back, nothing is recorded, and the change is written once', async () => {
    const { fake, client } = fakeService();
    const { store, effects, effectRows } = await setup();
    fake.setOrder({ externalId: 'l-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't' } });
    const log: TrackerLogEntry[] = [];
    let calls = 0;
    const table = store.table.replaceAll('"', '');
    const tracker = createStatusTracker({
      client,
      store,
      claimIntervalMs: 10,
      leaseMs: 1_000,
      schedule: FAST,
      logger: (entry) => void log.push(entry),
      onChange: async ({ externalId, status, transaction }) => {
        calls += 1;
        await transaction.query(`INSERT INTO "${effects}" (external_id, status) VALUES ($1, $2)`, [externalId, status]);
        if (calls === 1) {
          // as if this process had stalled past its lease and another had claimed the record, whose lease then ran out
          await database.pool.query(
            `UPDATE "${table}" SET lease_token = 'elsewhere:1', lease_until = 0, due_at = 0 WHERE external_id = 'l-1'`,
          );
        }
      },
    });
    trackers.push(tracker);
    tracker.start();
    await tracker.watchOrder('l-1');
    expect(await eventually(async () => (await store.get('order', 'l-1'))?.watching === false, 10_000)).toBe(true);
    expect(calls).toBe(2);
    expect(await effectRows()).toEqual([{ external_id: 'l-1', status: 'Settled', n: 1 }]);
    expect(log.some((e) => e.event === 'tracker.lease-lost')).toBe(true);
  });

  it('a misused transaction (COMMIT through it, the refusal swallowed) records nothing, and the change is handed over again', async () => {
    const { fake, client } = fakeService();
    const { store, effects, effectRows } = await setup();
    fake.setWithdrawal({ externalId: 'w-1', status: 'Completed' });
    const log: TrackerLogEntry[] = [];
    let calls = 0;
    const tracker = createStatusTracker({
      client,
      store,
      claimIntervalMs: 10,
      leaseMs: 1_000,
      schedule: FAST,
      logger: (entry) => void log.push(entry),
      onChange: async ({ externalId, status, transaction }) => {
        calls += 1;
        await transaction.query(`INSERT INTO "${effects}" (external_id, status) VALUES ($1, $2)`, [externalId, status]);
        if (calls === 1) await transaction.query('COMMIT').catch(() => undefined); // refused; a partner swallowing it still fails the turn
      },
    });
    trackers.push(tracker);
    tracker.start();
    await tracker.watchWithdrawal('w-1');
    expect(await eventually(async () => (await store.get('withdrawal', 'w-1'))?.watching === false, 10_000)).toBe(true);
    expect(calls).toBe(2);
    expect(await effectRows()).toEqual([{ external_id: 'w-1', status: 'Completed', n: 1 }]);
    const failed = log.find((e) => e.event === 'tracker.store-failed');
    expect(failed?.error).toMatchObject({
      name: 'PostgresTransactionError',
      message: expect.stringMatching(/must not end or replace its transaction/),
    });
  });

  it('a session killed mid-onChange (pg_terminate_backend) records nothing and does not crash; the change is handed over again and written once', async () => {
    const { fake, client } = fakeService();
    const { store, effects, effectRows } = await setup();
    fake.setOrder({ externalId: 'k-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't' } });
    const log: TrackerLogEntry[] = [];
    let calls = 0;
    const tracker = createStatusTracker({
      client,
      store,
      claimIntervalMs: 10,
      leaseMs: 1_000,
      schedule: FAST,
      logger: (entry) => void log.push(entry),
      onChange: async ({ externalId, status, transaction }) => {
        calls += 1;
        await transaction.query(`INSERT INTO "${effects}" (external_id, status) VALUES ($1, $2)`, [externalId, status]);
        if (calls === 1) {
          const pid = (await transaction.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
          await database.pool.query('SELECT pg_terminate_backend($1)', [pid]);
        }
      },
    });
    trackers.push(tracker);
    tracker.start();
    await tracker.watchOrder('k-1');
    expect(await eventually(async () => (await store.get('order', 'k-1'))?.watching === false, 10_000)).toBe(true);
    expect(calls).toBe(2);
    expect(await effectRows()).toEqual([{ external_id: 'k-1', status: 'Settled', n: 1 }]);
    expect(log.find((e) => e.event === 'tracker.store-failed')?.error?.name).toBe('PostgresStoreError');
  });

  it('a blackholed network mid-onChange: the turn fails within transactionTimeoutMs plus a grace, nothing is recorded, and once the network is back the change is written once', async () => {
    const { fake, client } = fakeService();
    const proxy = await startTcpProxy(database.server.port);
    const proxied = new pg.Pool({ connectionString: proxy.via(database.server.url), max: 4, connectionTimeoutMillis: 1_000 });
    proxied.on('error', () => undefined);
    try {
      const { store, effects, effectRows } = await setup(proxied, { transactionTimeoutMs: 1_000 });
      fake.setOrder({ externalId: 'b-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't' } });
      const log: TrackerLogEntry[] = [];
      let calls = 0;
      let failedAt = 0;
      const holedAt = { ms: 0 };
      const tracker = createStatusTracker({
        client,
        store,
        claimIntervalMs: 10,
        leaseMs: 1_000,
        schedule: FAST,
        logger: (entry) => {
          log.push(entry);
          if (entry.event === 'tracker.store-failed' && failedAt === 0 && holedAt.ms > 0) failedAt = Date.now();
        },
        onChange: async ({ externalId, status, transaction }) => {
          calls += 1;
          await transaction.query(`INSERT INTO "${effects}" (external_id, status) VALUES ($1, $2)`, [externalId, status]);
          if (calls === 1) {
            holedAt.ms = Date.now();
            proxy.blackhole(); // inside the transaction: the status write and COMMIT go nowhere
          }
        },
      });
      trackers.push(tracker);
      tracker.start();
      await tracker.watchOrder('b-1');
      expect(await eventually(async () => failedAt > 0, 6_000)).toBe(true);
      expect(failedAt - holedAt.ms).toBeLessThan(1_000 + 2_000 + 1_000); // bound, plus grace, plus slack for a loaded machine
      expect(await effectRows()).toEqual([]);
      proxy.restore();
      expect(await eventually(async () => (await effectRows()).length === 1, 10_000)).toBe(true);
      expect(
        await eventually(
          async () =>
            (
              await database.pool.query<{ watching: boolean }>(
                `SELECT watching FROM "${store.table.replaceAll('"', '')}" WHERE external_id = 'b-1'`,
              )
            ).rows[0]?.watching === false,
          10_000,
        ),
      ).toBe(true);
      expect(await effectRows()).toEqual([{ external_id: 'b-1', status: 'Settled', n: 1 }]);
      expect(calls).toBe(2);
      expect(await tracker.drain({ timeoutMs: 3_000 })).toMatchObject({ drained: true });
    } finally {
      proxy.restore();
      await Promise.race([proxied.end(), new Promise((_, reject) => setTimeout(() => reject(new Error('pool.end() hung')), 5_000))]);
      await proxy.close();
    }
    const idle = await database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'`,
    );
    expect(idle.rows[0]!.n).toBe(0);
  });
});
