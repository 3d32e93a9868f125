import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { createStatusTracker, type StatusChange } from 'checkout-partner-sdk/tracker';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { pgPool, usePostgres } from '../helpers/postgres-pool.js';
import { fakeService } from './helpers.js';

// The web process watches an order in the transaction that creates it, with a tracker it never
// starts (docs/postgres.md, "Watching in your own transaction"); a worker's started tracker on the same
// table reads it. The web process's tracker reads nothing and claims nothing itself.

const database = usePostgres({ max: 2 });
let tables = 0;
const uniqueTable = (prefix: string): string => `${prefix}_${process.pid}_${++tables}`;

describe("a web process's unstarted tracker on a transactional PostgresStatusStore", () => {
  it('watches an order in the partner transaction that inserts it; a started worker tracker hands its change over', async () => {
    const table = uniqueTable('web');
    const orders = uniqueTable('orders');
    await database.pool.query(`CREATE TABLE "${orders}" (external_id text PRIMARY KEY, fulfilled_status text)`);
    const webPool = pgPool(database.server.url, { max: 2 });
    const workerPool = pgPool(database.server.url, { max: 4 });
    const { fake, client, reads } = fakeService();
    const webChanges: StatusChange[] = [];
    const web = createStatusTracker({
      client,
      store: new PostgresStatusStore({ pool: webPool, table, transactional: true }),
      onChange: (change) => void webChanges.push(change),
    });
    const workerStore = new PostgresStatusStore({ pool: workerPool, table, transactional: true });
    await workerStore.ensureSchema();
    const worker = createStatusTracker({
      client,
      store: workerStore,
      claimIntervalMs: 20,
      schedule: { fastIntervalMs: 50 },
      onChange: async ({ externalId, status, transaction }) => {
        await transaction.query(`UPDATE "${orders}" SET fulfilled_status = $2 WHERE external_id = $1`, [externalId, status]);
      },
    });
    worker.start();
    try {
      fake.setOrder({ externalId: 'o-kept', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
      fake.setOrder({ externalId: 'o-rolled-back', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-2' } });
      // the partner's own transaction: the order row and its watch commit together, or neither does
      for (const [externalId, end] of [
        ['o-kept', 'COMMIT'],
        ['o-rolled-back', 'ROLLBACK'],
      ] as const) {
        const transaction = await webPool.connect();
        try {
          await transaction.query('BEGIN');
          await transaction.query(`INSERT INTO "${orders}" (external_id) VALUES ($1)`, [externalId]);
          await web.watchOrder(externalId, { transaction });
          await transaction.query(end);
        } finally {
          transaction.release();
        }
      }
      const fulfilled = async () =>
        (await database.pool.query(`SELECT external_id, fulfilled_status FROM "${orders}" ORDER BY 1`)).rows as unknown[];
      expect(
        await eventually(
          async () => (await fulfilled()).length === 1 && (await workerStore.get('order', 'o-kept'))?.watching === false,
          10_000,
        ),
      ).toBe(true);
      expect(await fulfilled()).toEqual([{ external_id: 'o-kept', fulfilled_status: 'Settled' }]);
      expect(await workerStore.get('order', 'o-rolled-back')).toBeUndefined();
      expect(reads.get('o-rolled-back')).toBeUndefined();
      // the web process's tracker was never started: no onChange of its own, no claim in its name
      expect(webChanges).toEqual([]);
      expect(await web.health()).toMatchObject({ running: false });
    } finally {
      await worker.drain({ timeoutMs: 3_000 });
      await Promise.all([webPool.end(), workerPool.end()]);
    }
  });
});
