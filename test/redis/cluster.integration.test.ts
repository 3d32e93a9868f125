import { Cluster, Redis } from 'ioredis';
import { createCluster } from 'redis';
import { RedisEventStore, RedisStatusStore, RedisStoreError, RedisTokenStore, type RedisClientLike } from 'checkout-partner-sdk/redis';
import { playTimeline } from 'checkout-partner-sdk/testing';
import { createStatusTracker, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { fakeService, recorder } from '../tracker/helpers.js';
import { statusStoreContract, statusStoreMetricsContract, type StoreUnderTest } from '../tracker/store-contract.js';
import { eventStoreContract } from '../stores/event-store-contract.js';

let cluster: RedisCluster;
/** A plain connection to each master, to see where the keys landed. */
let masters: Redis[] = [];
beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  masters = cluster.ports.map((port) => new Redis({ host: '127.0.0.1', port, lazyConnect: true }));
  await Promise.all(masters.map((master) => master.connect()));
});
afterAll(async () => {
  for (const master of masters) master.disconnect();
  await cluster?.stop();
});

interface ClusterFlavour {
  name: string;
  connect(): Promise<{ client: RedisClientLike; close(): Promise<void> }>;
}

const flavours: ClusterFlavour[] = [
  {
    name: 'ioredis Cluster',
    async connect() {
      const client = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
      client.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => {
        client.once('ready', resolve);
        client.once('error', reject);
      });
      return { client, close: async () => client.disconnect() };
    },
  },
  {
    name: 'node-redis cluster',
    async connect() {
      const client = createCluster({ rootNodes: cluster.ports.map((port) => ({ url: `redis://127.0.0.1:${port}` })) });
      client.on('error', () => undefined);
      await client.connect();
      return { client, close: async () => client.destroy() };
    },
  },
];

/** How many keys under `prefix` each master holds. */
async function keysPerMaster(prefix: string): Promise<number[]> {
  return Promise.all(masters.map(async (master) => (await master.keys(`${prefix}*`)).length));
}

let prefixes = 0;

describe.each(flavours)('Redis stores on a 3-master Redis Cluster with $name', (flavour) => {
  let client: RedisClientLike;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ client, close } = await flavour.connect());
  });
  afterAll(() => close?.());

  describe('RedisStatusStore: the StatusStore contract (16 parts, the Cluster default)', () => {
    const fresh = (): StoreUnderTest => ({
      store: new RedisStatusStore({ client, prefix: `cluster-status-${++prefixes}:` }),
      advance: (ms) => sleep(ms),
    });
    statusStoreContract(fresh);
    statusStoreMetricsContract(fresh);
  });

  describe('RedisEventStore: the EventStore contract (keys spread over the masters)', () => {
    eventStoreContract(() => {
      const prefix = `cluster-events-${++prefixes}:`;
      return { a: new RedisEventStore({ client, prefix }), b: new RedisEventStore({ client, prefix }), advance: (ms) => sleep(ms) };
    });
  });

  it('spreads the records over every master and claims them earliest first across the parts', async () => {
    const prefix = `cluster-spread-${++prefixes}:`;
    const store = new RedisStatusStore({ client, prefix });
    expect(store.shards).toBe(16);
    const ids = Array.from({ length: 48 }, (_, i) => `o-${i}`);
    for (const id of ids) await store.watch('order', id);
    const perMaster = await keysPerMaster(prefix);
    // every master holds records and a part of the due index
    expect(perMaster.every((count) => count > 0)).toBe(true);
    // the records, and each part's due index and owed index
    expect(perMaster.reduce((a, b) => a + b, 0)).toBe(48 + 16 + 16);
    expect(await store.countWatched()).toBe(48);
    // earliest first across the parts (watched one after the other: due in that order)
    const first = await store.claimDue({ limit: 10, leaseMs: 60_000, owner: 'a' });
    expect(first).toHaveLength(10);
    const due = first.map((record) => record.dueAt!);
    expect(due).toEqual([...due].sort((a, b) => a - b));
    const rest = await store.claimDue({ limit: 100, leaseMs: 60_000, owner: 'b' });
    expect(new Set([...first, ...rest].map((record) => record.externalId))).toEqual(new Set(ids));
    // the earliest 10 went to the first claim
    expect(Math.max(...due)).toBeLessThanOrEqual(Math.min(...rest.map((record) => record.dueAt!)));
    // reclaim finds a's leases in every part
    expect(await store.reclaim('a')).toBe(10);
    expect(await store.claimDue({ limit: 100, leaseMs: 60_000, owner: 'c' })).toHaveLength(10);
  });

  it('with as many parts as masters, each part lands on its own master (each tag hashes into its third of the slots)', async () => {
    const prefix = `cluster-thirds-${++prefixes}:`;
    const store = new RedisStatusStore({ client, prefix, shards: 3 });
    for (let i = 0; i < 30; i += 1) await store.watch('order', `o-${i}`);
    const dues = await Promise.all(masters.map(async (master) => (await master.keys(`${prefix}*due`)).length));
    expect(dues).toEqual([1, 1, 1]);
    // each part's owed index is in its part's slot, beside its due index
    const owed = await Promise.all(masters.map(async (master) => (await master.keys(`${prefix}*owed`)).length));
    expect(owed).toEqual([1, 1, 1]);
    // overdue() sums the parts, each on its own master: every record watched and never read
    await sleep(5);
    expect((await store.overdue()).count).toBe(30);
  });

  it('three trackers on the Cluster hand every status of every record over once, in order', async () => {
    const { fake, client: checkout } = fakeService();
    const seen = recorder();
    const store = new RedisStatusStore({ client, prefix: `cluster-tracker-${++prefixes}:` });
    const schedule = { fastIntervalMs: 40, fastForMs: 600_000, maxIntervalMs: 1_000, retryDelayMs: 40, jitter: 0.2 };
    const three: StatusTracker[] = Array.from({ length: 3 }, (_, i) =>
      createStatusTracker({
        client: checkout,
        store,
        owner: `p${i}`,
        claimIntervalMs: 10,
        // its store calls are bounded by a third of it: a Cluster on a loaded machine can take over a second
        leaseMs: 6_000,
        schedule,
        onChange: seen.onChange,
        logger: seen.logger,
      }),
    );
    try {
      for (const tracker of three) tracker.start();
      const ids = Array.from({ length: 30 }, (_, i) => `o-${i}`);
      const steps = [];
      for (const [i, id] of ids.entries()) {
        fake.setOrder({ externalId: id, currency: 'USDT', settlement: { status: 'Pending', tradeId: null } });
        steps.push({ atMs: 100 + i * 20, order: id, patch: { settlement: { status: 'Processing' } } });
        steps.push({ atMs: 800 + i * 20, order: id, patch: { settlement: { status: 'Settled' } } });
      }
      for (const [i, id] of ids.entries()) await three[i % 3]!.watchOrder(id);
      await playTimeline(fake, steps).done;
      expect(await eventually(async () => seen.changes.filter((c) => c.status === 'Settled').length === ids.length, 20_000)).toBe(true);
      for (const id of ids) {
        const statuses = seen.statuses(id);
        expect(new Set(statuses).size).toBe(statuses.length);
        expect(['Pending', 'Processing', 'Settled'].filter((s) => statuses.includes(s))).toEqual(statuses);
        expect(statuses.at(-1)).toBe('Settled');
      }
      expect(await eventually(async () => (await store.countWatched()) === 0, 10_000)).toBe(true);
      expect(seen.log.filter((entry) => entry.event === 'tracker.lease-lost' || entry.event === 'tracker.store-failed')).toEqual([]);
    } finally {
      await Promise.all(three.map((tracker) => tracker.drain({ timeoutMs: 3_000 })));
    }
  });

  it('RedisEventStore and RedisTokenStore work there, their keys spread over the masters', async () => {
    const prefix = `cluster-event-${++prefixes}:`;
    const events = new RedisEventStore({ client, prefix });
    for (let i = 0; i < 30; i += 1) {
      const claim = await events.claim(`e-${i}`, 60_000);
      expect(claim).toMatchObject({ status: 'claimed' });
      if (i % 2 === 0) await events.complete(`e-${i}`, (claim as { lease: unknown }).lease);
      else await events.release(`e-${i}`, (claim as { lease: unknown }).lease);
    }
    expect(await events.claim('e-0', 60_000)).toBe('done');
    expect(await events.claim('e-1', 60_000)).toMatchObject({ status: 'claimed' });
    expect((await keysPerMaster(prefix)).filter((count) => count > 0).length).toBeGreaterThan(1);

    const tokens = new RedisTokenStore({ client, prefix: `cluster-token-${++prefixes}:` });
    const unlock = await tokens.lock('partner-a');
    expect(unlock).toBeTypeOf('function');
    expect(await tokens.lock('partner-a')).toBeUndefined();
    await tokens.set('partner-a', { accessToken: 'token-a', expiresAt: Date.now() + 60_000 });
    expect(await tokens.get('partner-a')).toMatchObject({ accessToken: 'token-a' });
    await unlock!();
    expect(await tokens.lock('partner-a')).toBeTypeOf('function');
  });

  it('waitForReplicas sends WAIT to the master that took the write (this cluster has no replicas: 0 acknowledge)', async () => {
    const store = new RedisStatusStore({ client, prefix: `cluster-wait-${++prefixes}:`, waitForReplicas: { replicas: 1, timeoutMs: 50 } });
    const events = new RedisEventStore({ client, prefix: `cluster-wait-${++prefixes}:`, waitForReplicas: { replicas: 1, timeoutMs: 50 } });
    for (let i = 0; i < 6; i += 1) await store.watch('order', `o-${i}`);
    const claimed = await store.claimDue({ limit: 6, leaseMs: 60_000, owner: 'a' });
    expect(claimed).toHaveLength(6);
    for (const record of claimed) {
      await expect(store.commit(record.lease, 'Settled', { failures: 0, next: { end: 'final' } })).rejects.toThrow(
        /only 0 of the 1 replicas/,
      );
    }
    const claim = await events.claim('e-1', 60_000);
    await expect(events.complete('e-1', (claim as { lease: unknown }).lease)).rejects.toThrow(/only 0 of the 1 replicas/);
  });

  it('checks the eviction policy of every master, and names the one that evicts', async () => {
    const evicting = masters[2]!;
    await evicting.config('SET', 'maxmemory-policy', 'volatile-lru');
    try {
      for (const store of [
        new RedisStatusStore({ client, prefix: `cluster-evict-${++prefixes}:` }),
        new RedisEventStore({ client, prefix: `cluster-evict-${++prefixes}:` }),
      ]) {
        const attempt = store instanceof RedisStatusStore ? store.watch('order', 'o-1') : store.claim('e-1', 1_000);
        const error = await attempt.then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(RedisStoreError);
        expect((error as Error).message).toContain('maxmemory-policy is volatile-lru');
        expect((error as Error).message).toContain(`127.0.0.1:${cluster.ports[2]}`);
      }
      const optedOut = new RedisEventStore({ client, prefix: `cluster-evict-${++prefixes}:`, allowEvictingServer: true });
      expect(await optedOut.claim('e-1', 1_000)).toMatchObject({ status: 'claimed' });
    } finally {
      await evicting.config('SET', 'maxmemory-policy', 'noeviction');
    }
  });
});
