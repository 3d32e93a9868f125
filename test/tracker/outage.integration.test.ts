import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { RedisStatusStore } from 'checkout-partner-sdk/redis';
import { createFakeCheckout, type FakeCheckout } from 'checkout-partner-sdk/testing';
import {
  createStatusTracker,
  MemoryStatusStore,
  type StatusChange,
  type StatusStore,
  type StatusTracker,
} from 'checkout-partner-sdk/tracker';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { usePostgres } from '../helpers/postgres-pool.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { flavours, type Connection } from '../redis/clients.js';

// API.md "Back on its feet": a failure back-off protects a failing service, not a healthy one.
// The fake, on loopback, fails every status read for a while (503); once it answers again every
// watched record's change arrives within about one normal interval, and a nudge (what a webhook
// does) for a record read during the outage reads it at once. And "Health": tracker.health() shows
// the backlog grow while no tracker runs and through an outage. Each store, on its own clock.

const database = usePostgres({ max: 4 });
let redisServer: RedisServer | undefined;
let redis: Connection | undefined;
beforeAll(async () => {
  redisServer = await startRedis();
  redis = await flavours[0]!.connect(redisServer.url);
});
afterAll(async () => {
  await redis?.close();
  await redisServer?.stop();
});

let stores = 0;
const STORES: { name: string; make: () => Promise<StatusStore> }[] = [
  { name: 'MemoryStatusStore', make: async () => new MemoryStatusStore() },
  {
    name: 'RedisStatusStore',
    make: async () => new RedisStatusStore({ client: redis!.client, prefix: `outage-${++stores}:` }),
  },
  {
    name: 'PostgresStatusStore',
    make: async () => {
      const store = new PostgresStatusStore({ pool: database.pool, table: `outage_${process.pid}_${++stores}` });
      await store.ensureSchema();
      return store;
    },
  },
];

const PARTNER = { partnerId: 'p-1', partnerSecret: 's-1', enabled: true, apiEnabled: true };
const trackers: StatusTracker[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(trackers.splice(0).map((tracker) => tracker.drain({ timeoutMs: 3_000 })));
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function service(): Promise<{ fake: FakeCheckout; client: CheckoutClient }> {
  const fake = createFakeCheckout({ partners: [PARTNER] });
  const server = await fake.listen();
  closers.push(() => server.close());
  const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-1', partnerSecret: 's-1', maxRetries: 0 });
  return { fake, client };
}

/** Every onChange call with when it came (this process's clock). */
function arrivals() {
  const seen: (StatusChange & { at: number })[] = [];
  return {
    seen,
    onChange: (change: StatusChange) => void seen.push({ ...change, at: Date.now() }),
    at: (id: string, status: string) => seen.find((change) => change.externalId === id && change.status === status)?.at,
  };
}

const SCHEDULE = { fastIntervalMs: 200, fastForMs: 600_000, maxIntervalMs: 30_000, retryDelayMs: 100, jitter: 0.2 };
const IDS = ['o-1', 'o-2', 'o-3', 'o-4', 'o-5', 'o-6'];

/**
 * The service comes back: the fake as right after creation (its faults gone, its tokens revoked:
 * the client mints again), holding `orders` as they changed during the outage.
 */
function recover(fake: FakeCheckout, orders: Record<string, string>): number {
  fake.reset();
  for (const [id, status] of Object.entries(orders))
    fake.setOrder({ externalId: id, currency: 'BRZ', settlement: { status, tradeId: null } });
  return Date.now();
}

/** A fake whose orders `ids` are Pending, and a tracker on a store from `make` recording what it hands over (not started). */
async function watching(make: () => Promise<StatusStore>, ids: readonly string[], schedule = SCHEDULE) {
  const { fake, client } = await service();
  for (const id of ids) fake.setOrder({ externalId: id, currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
  const seen = arrivals();
  const store = await make();
  const tracker = createStatusTracker({ client, store, onChange: seen.onChange, schedule, claimIntervalMs: 20, logger: false });
  trackers.push(tracker);
  return { fake, seen, store, tracker };
}

describe.each(STORES)('back on its feet after an outage ($name)', ({ make }) => {
  it('every change made during a 503 outage arrives within about one normal interval of recovery', async () => {
    const { fake, seen, tracker } = await watching(make, IDS);
    tracker.start();
    for (const id of IDS) await tracker.watchOrder(id);
    expect(await eventually(() => IDS.every((id) => seen.at(id, 'Pending') !== undefined), 10_000)).toBe(true);

    fake.failNext(1_000_000, 503, { only: 'business' });
    const before = fake.pendingFaults;
    // long enough that a per-record back-off (100 ms doubling) would have reached several seconds
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    // the tracker held back to one probe read at a time: far fewer reads than six records on their schedule (~240)
    expect(before - fake.pendingFaults).toBeLessThan(120);
    const recoveredAt = recover(fake, Object.fromEntries(IDS.map((id, i) => [id, i % 2 === 0 ? 'Processing' : 'Settled'])));

    expect(
      await eventually(
        () =>
          IDS.every((id) => seen.at(id, id.endsWith('1') || id.endsWith('3') || id.endsWith('5') ? 'Processing' : 'Settled') !== undefined),
        10_000,
      ),
    ).toBe(true);
    const late = IDS.map((id) => seen.at(id, Number(id.slice(2)) % 2 === 1 ? 'Processing' : 'Settled')! - recoveredAt);
    // about one normal interval (200 ms ±20%), plus a probe wait (at most 200 ms), a token exchange and loopback reads on a busy machine
    expect(Math.max(...late)).toBeLessThan(1_500);
  });

  it('a nudge for a record read during the outage reads it at once once the service answers, however long its schedule', async () => {
    // past its fast period at once: the record's normal wait grows towards a minute
    const { fake, seen, store, tracker } = await watching(make, ['slow-1', 'fast-1'], { ...SCHEDULE, fastForMs: 1, maxIntervalMs: 60_000 });
    tracker.start();
    await tracker.watchOrder('slow-1');
    expect(await eventually(() => seen.at('slow-1', 'Pending') !== undefined, 10_000)).toBe(true);

    fake.failNext(1_000_000, 503, { only: 'business' });
    // a read of slow-1 during the outage: nudged, so it is read (and fails) at once
    await tracker.nudge('order', 'slow-1');
    expect(await eventually(async () => fake.pendingFaults < 1_000_000, 5_000)).toBe(true);
    // long enough that a per-record back-off (100 ms doubling) would be seconds long at recovery
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    recover(fake, { 'slow-1': 'Settled', 'fast-1': 'Pending' });
    // the service answers again (another record's read shows it), then the provider's event for slow-1
    await tracker.watchOrder('fast-1');
    expect(await eventually(() => seen.at('fast-1', 'Pending') !== undefined, 10_000)).toBe(true);
    const nudgedAt = Date.now();
    await tracker.nudge('order', 'slow-1');
    expect(await eventually(() => seen.at('slow-1', 'Settled') !== undefined, 10_000)).toBe(true);
    expect(seen.at('slow-1', 'Settled')! - nudgedAt).toBeLessThan(1_000);
    expect((await store.get('order', 'slow-1'))?.failures ?? 0).toBe(0);
  });

  it('health(): the backlog grows while no tracker runs and through an outage, and clears once the service answers', async () => {
    const ids = ['h-1', 'h-2', 'h-3'];
    const { fake, seen, tracker } = await watching(make, ids);
    for (const id of ids) await tracker.watchOrder(id);

    // no tracker runs: every watched record is overdue, more so as time passes
    await sleep(300);
    const idle = await tracker.health();
    expect(idle).toMatchObject({ running: false, draining: false, inHand: 0, overdue: 3, lastClaimAt: undefined });
    expect(idle.oldestOverdueMs).toBeGreaterThanOrEqual(250);
    await sleep(500);
    expect((await tracker.health()).oldestOverdueMs).toBeGreaterThanOrEqual(idle.oldestOverdueMs! + 450);

    // running: read on schedule, the backlog is gone (at most a read in flight, late by a few ms)
    tracker.start();
    expect(await eventually(() => ids.every((id) => seen.at(id, 'Pending') !== undefined), 10_000)).toBe(true);
    expect(await eventually(async () => (await tracker.health()).oldestOverdueMs! < 100, 5_000)).toBe(true);
    expect((await tracker.health()).lastClaimAt).toBeTypeOf('number');

    // an outage: every read fails, the records stay overdue and the oldest grows with the outage
    fake.failNext(1_000_000, 503, { only: 'business' });
    await sleep(1_000);
    const during = await tracker.health();
    expect(during).toMatchObject({ running: true, overdue: 3 });
    await sleep(1_000);
    const later = await tracker.health();
    expect(later.overdue).toBe(3);
    expect(later.oldestOverdueMs!).toBeGreaterThanOrEqual(during.oldestOverdueMs! + 900);
    expect(later.oldestOverdueMs!).toBeGreaterThanOrEqual(1_500);

    // back: read again, the backlog clears
    recover(fake, Object.fromEntries(ids.map((id) => [id, 'Processing'])));
    expect(await eventually(() => ids.every((id) => seen.at(id, 'Processing') !== undefined), 10_000)).toBe(true);
    expect(await eventually(async () => (await tracker.health()).oldestOverdueMs! < 100, 5_000)).toBe(true);

    // drained: no tracker reads any more, the backlog grows again past the schedule (200 ms)
    await tracker.drain({ timeoutMs: 3_000 });
    await sleep(800);
    const stopped = await tracker.health();
    expect(stopped).toMatchObject({ running: false, draining: false, inHand: 0, overdue: 3 });
    expect(stopped.oldestOverdueMs).toBeGreaterThanOrEqual(400);
  });
});
