import { RedisStatusStore } from 'checkout-partner-sdk/redis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { flavours, type Connection } from '../redis/clients.js';
import { statusStoreContract, statusStoreMetricsContract, type StoreUnderTest } from './store-contract.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(() => server?.stop());

let prefixes = 0;

describe.each(flavours)('RedisStatusStore with $name: the StatusStore contract', (flavour) => {
  let connection: Connection;
  beforeAll(async () => {
    connection = await flavour.connect(server.url);
  });
  afterAll(() => connection?.close());
  // the store's clock is the server's: time passes for real
  const fresh = (shards?: number): StoreUnderTest => ({
    store: new RedisStatusStore({ client: connection.client, prefix: `status-test-${flavour.name}-${++prefixes}:`, shards }),
    advance: (ms) => sleep(ms),
  });
  describe('one due index', () => {
    statusStoreContract(() => fresh());
    statusStoreMetricsContract(() => fresh());
  });
  // the layout a Cluster gets, on one server: every part read and merged earliest first
  describe('the due index in 4 parts', () => {
    statusStoreContract(() => fresh(4));
    statusStoreMetricsContract(() => fresh(4));
  });

  it('a record watched before the owed index existed owes its read from its due time once claimed', async () => {
    const prefix = `status-test-${flavour.name}-${++prefixes}:`;
    const store = new RedisStatusStore({ client: connection.client, prefix });
    await store.watch('order', 'old-1');
    await store.nudge('order', 'old-2', {});
    // a due time of its own: in the same millisecond the index would order new-1 before old-1 by name
    await sleep(5);
    await store.watch('order', 'new-1');
    // what an earlier version wrote: the records and their due times, no owed entries
    await connection.raw('ZREM', `${prefix}owed`, 'order:old-1', 'order:old-2');
    await sleep(260);
    expect((await store.overdue()).count).toBe(1);
    const claimed = await store.claimDue({ limit: 10, leaseMs: 60_000, owner: 'a' });
    expect(claimed.map((record) => record.externalId)).toEqual(['old-2', 'old-1', 'new-1']);
    const [nudged, old, fresh] = claimed;
    await store.reschedule(nudged!.lease, { failures: 1, next: { delayMs: 60_000 } });
    await store.reschedule(old!.lease, { failures: 1, next: { delayMs: 60_000 } });
    await store.commit(fresh!.lease, 'Pending', { failures: 0, next: { delayMs: 60_000 } });
    const overdue = await store.overdue();
    expect(overdue.count).toBe(2);
    expect(old!.claimedAt - old!.dueAt!).toBeGreaterThanOrEqual(200);
    expect(overdue.oldestMs).toBeGreaterThanOrEqual(old!.claimedAt - old!.dueAt!);
    // the nudged one owes it since its nudge, not since its place a day ahead of the backlog
    expect(overdue.oldestMs).toBeLessThan(60_000);
  });
});

describe('RedisStatusStore options', () => {
  const client = { call: async () => null };
  it('refuses a shards count that is not a whole number from 1 to 1024 with a TypeError', () => {
    for (const shards of [0, -1, 1.5, Number.NaN, '4', 1025]) {
      expect(() => new RedisStatusStore({ client, shards: shards as never })).toThrow(/shards must be/);
    }
    expect(new RedisStatusStore({ client }).shards).toBe(1);
    expect(new RedisStatusStore({ client, shards: 1024 }).shards).toBe(1024);
  });

  it('refuses bad claimDue and reclaim arguments with a TypeError before any command', async () => {
    let calls = 0;
    const store = new RedisStatusStore({ client: { call: async () => (calls++, null) }, allowEvictingServer: true });
    for (const request of [
      { limit: 0, leaseMs: 1_000, owner: 'a' },
      { limit: 1, leaseMs: 0, owner: 'a' },
      { limit: 1, leaseMs: Number.NaN, owner: 'a' },
      { limit: 1, leaseMs: 1_000, owner: '' },
    ]) {
      await expect(store.claimDue(request)).rejects.toThrow(TypeError);
    }
    await expect(store.reclaim('')).rejects.toThrow(TypeError);
    await expect(store.reclaim(42 as never)).rejects.toThrow(TypeError);
    expect(calls).toBe(0);
  });
});
