import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { RedisStatusStore } from 'checkout-partner-sdk/redis';
import { createStatusTracker, type StatusChange, type StatusStore, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { usePostgres } from '../helpers/postgres-pool.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { flavours, type Connection } from '../redis/clients.js';
import { fakeService } from './helpers.js';

// change.id on the shared stores: one change keeps its id on another process after onChange threw
// there; every change of a record has its own, a status reached again included.

const database = usePostgres({ max: 8 });
let redis: RedisServer;
let connection: Connection;
beforeAll(async () => {
  redis = await startRedis();
  connection = await flavours[0]!.connect(redis.url);
});
afterAll(async () => {
  await connection?.close();
  await redis?.stop();
});

let made = 0;
const stores: { name: string; make: () => Promise<StatusStore> }[] = [
  { name: 'RedisStatusStore', make: async () => new RedisStatusStore({ client: connection.client, prefix: `change-id-${++made}:` }) },
  ...[false, true].map((transactional) => ({
    name: `PostgresStatusStore${transactional ? ' (transactional)' : ''}`,
    make: async () => {
      const store = new PostgresStatusStore({ pool: database.pool, table: `change_id_${process.pid}_${++made}`, transactional });
      await store.ensureSchema();
      return store;
    },
  })),
];

const FAST = { fastIntervalMs: 40, fastForMs: 600_000, maxIntervalMs: 1_000, retryDelayMs: 40, jitter: 0.2 };
const trackers: StatusTracker[] = [];
afterEach(async () => {
  await Promise.all(trackers.splice(0).map((tracker) => tracker.drain({ timeoutMs: 3_000 })));
});

function started(
  store: StatusStore,
  owner: string,
  onChange: (change: StatusChange) => void,
  client: ReturnType<typeof fakeService>['client'],
) {
  const tracker = createStatusTracker({
    client,
    store,
    owner,
    onChange,
    claimIntervalMs: 10,
    leaseMs: 2_000,
    schedule: FAST,
    logger: false,
  });
  trackers.push(tracker);
  tracker.start();
  return tracker;
}

describe.each(stores)('change.id on $name', ({ make }) => {
  it('is the same on another process after onChange threw, and differs between records', async () => {
    const { fake, client } = fakeService();
    const store = await make();
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
    fake.setOrder({ externalId: 'o-2', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-2' } });
    const failed: StatusChange[] = [];
    const first = started(
      store,
      'worker-1',
      (change) => {
        failed.push(change);
        throw new Error('the warehouse call failed');
      },
      client,
    );
    await first.watchOrder('o-1');
    expect(await eventually(() => failed.length > 0, 10_000)).toBe(true);
    await first.drain({ timeoutMs: 3_000 });

    const handed: StatusChange[] = [];
    const second = started(store, 'worker-2', (change) => void handed.push(change), client);
    await second.watchOrder('o-2');
    expect(await eventually(() => handed.length === 2, 10_000)).toBe(true);
    const id = (externalId: string) => handed.find((change) => change.externalId === externalId)?.id;
    expect(id('o-1')).toBe(failed[0]!.id);
    expect(id('o-2')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(id('o-2')).not.toBe(id('o-1'));
  });

  it('differs for every change of a record, a status reached again included', async () => {
    const { fake, client } = fakeService();
    const store = await make();
    const handed: StatusChange[] = [];
    const tracker = started(store, 'worker-1', (change) => void handed.push(change), client);
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
    await tracker.watchOrder('o-1');
    for (const [i, status] of ['Processing', 'Pending', 'Processing'].entries()) {
      expect(await eventually(() => handed.length === i + 1, 10_000)).toBe(true);
      fake.updateOrder('o-1', { settlement: { status } });
      await tracker.nudge('order', 'o-1');
    }
    expect(await eventually(() => handed.length === 4, 10_000)).toBe(true);
    expect(handed.map((change) => change.status)).toEqual(['Pending', 'Processing', 'Pending', 'Processing']);
    expect(new Set(handed.map((change) => change.id)).size).toBe(4);
  });
});
