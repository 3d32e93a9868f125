import { RedisStatusStore } from 'checkout-partner-sdk/redis';
import { createEvent, playTimeline } from 'checkout-partner-sdk/testing';
import { createStatusTracker, type StatusChange, type StatusTracker, type StatusTrackerOptions } from 'checkout-partner-sdk/tracker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { flavours, type Connection } from '../redis/clients.js';
import { fakeService, recorder } from './helpers.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(() => server?.stop());

const FAST = { fastIntervalMs: 40, fastForMs: 600_000, maxIntervalMs: 1_000, retryDelayMs: 40, jitter: 0.2 };
let prefixes = 0;

describe.each(flavours)('createStatusTracker on RedisStatusStore with $name', (flavour) => {
  let connection: Connection;
  const trackers: StatusTracker[] = [];
  beforeAll(async () => {
    connection = await flavour.connect(server.url);
  });
  afterEach(async () => {
    await Promise.all(trackers.splice(0).map((tracker) => tracker.drain({ timeoutMs: 3_000 })));
  });
  afterAll(() => connection?.close());

  /** `count` trackers (as many processes) sharing one prefix. */
  function fleet(count: number, options: Omit<StatusTrackerOptions, 'store' | 'client'>, client: StatusTrackerOptions['client']) {
    const prefix = `tracker-test-${flavour.name}-${++prefixes}:`;
    const store = new RedisStatusStore({ client: connection.client, prefix });
    const made = Array.from({ length: count }, (_, i) =>
      createStatusTracker({ claimIntervalMs: 10, leaseMs: 2_000, schedule: FAST, ...options, client, store, owner: `p${i}` }),
    );
    trackers.push(...made);
    for (const tracker of made) tracker.start();
    return { store, trackers: made };
  }

  it('three trackers hand every distinct status of every record to onChange once, in order', async () => {
    const { fake, client } = fakeService();
    const seen = recorder();
    const ids = Array.from({ length: 30 }, (_, i) => `o-${i}`);
    const steps = [];
    for (const id of ids) {
      fake.setOrder({ externalId: id, currency: id.endsWith('0') ? 'BRZ' : 'USDT', settlement: { status: 'Pending', tradeId: null } });
      const a = Math.floor(Math.random() * 800);
      steps.push({ atMs: a, order: id, patch: { settlement: { status: 'Processing' } } });
      steps.push({ atMs: a + 50 + Math.floor(Math.random() * 800), order: id, patch: { settlement: { status: 'Settled' } } });
    }
    const { trackers: three, store } = fleet(3, { onChange: seen.onChange }, client);
    for (const [i, id] of ids.entries()) await three[i % 3]!.watchOrder(id);
    await playTimeline(fake, steps).done;
    expect(await eventually(async () => seen.changes.filter((c) => c.status === 'Settled').length === ids.length, 15_000)).toBe(true);
    for (const id of ids) {
      const statuses = seen.statuses(id);
      // each status at most once, in the order the record went through them, ending Settled
      expect(new Set(statuses).size).toBe(statuses.length);
      expect(statuses.at(-1)).toBe('Settled');
      expect(['Pending', 'Processing', 'Settled'].filter((s) => statuses.includes(s))).toEqual(statuses);
      expect((await store.get('order', id))?.watching).toBe(false);
    }
  });

  it('five copies of an event and a later replay give one call; a throwing onChange gets the change again until it succeeds', async () => {
    const { fake, client } = fakeService();
    const calls: StatusChange[] = [];
    fake.setWithdrawal({ externalId: 'w-1', status: 'Completed' });
    const { trackers: two, store } = fleet(
      2,
      {
        onChange: (change) => {
          calls.push(change);
          if (calls.length < 3) throw new Error('not yet');
        },
      },
      client,
    );
    const event = createEvent('pix.withdrawal.settled', { withdrawalId: 'w-1' });
    await Promise.all(Array.from({ length: 5 }, (_, i) => two[i % 2]!.nudge('withdrawal', 'w-1', { event })));
    expect(await eventually(async () => (await store.get('withdrawal', 'w-1'))?.watching === false, 10_000)).toBe(true);
    expect(calls.map((c) => [c.status, c.previousStatus, c.source])).toEqual(Array(3).fill(['Completed', undefined, 'webhook']));
    await two[1]!.nudge('withdrawal', 'w-1', { event: { ...event, eventId: 'replay' } });
    await eventually(async () => (await store.get('withdrawal', 'w-1'))?.watching === false, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls).toHaveLength(3);
  });

  it('a slow onChange keeps its lease (heartbeat): the change is not handed to another process', async () => {
    const { fake, client } = fakeService();
    const calls: string[] = [];
    fake.setOrder({ externalId: 'slow-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't' } });
    const { trackers: two, store } = fleet(
      2,
      {
        leaseMs: 1_000,
        onChange: async (change) => {
          calls.push(change.externalId);
          await new Promise((resolve) => setTimeout(resolve, 2_500));
        },
      },
      client,
    );
    await two[0]!.watchOrder('slow-1');
    expect(await eventually(async () => (await store.get('order', 'slow-1'))?.watching === false, 10_000)).toBe(true);
    expect(calls).toEqual(['slow-1']);
  });
});
