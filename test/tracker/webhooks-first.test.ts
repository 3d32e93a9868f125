import { AuthenticationError, NotFoundError, ServerError, type StatusReader } from 'checkout-partner-sdk';
import { createEvent } from 'checkout-partner-sdk/testing';
import {
  createStatusTracker,
  MemoryStatusStore,
  type StatusChange,
  type StatusStore,
  type StatusTracker,
} from 'checkout-partner-sdk/tracker';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAKE_TIMERS } from './helpers.js';

// API.md "Webhooks first, polling as the safety net" and "Back on its feet": the fast pace only
// while an unannounced change is awaited and the checkout could be open; a safety pace while an
// announced one is; the old pace back where no event reached the store for a while; and after an
// outage or a refused secret, every record whose read failed read again within seconds.

let trackers: StatusTracker[] = [];
beforeEach(() => vi.useFakeTimers(FAKE_TIMERS));
afterEach(async () => {
  const draining = Promise.all(trackers.map((tracker) => tracker.drain({ timeoutMs: 1_000 })));
  await vi.advanceTimersByTimeAsync(2_000);
  await draining;
  trackers = [];
  vi.useRealTimers();
});

/** The defaults, without jitter: fast 2 s for 10 min, safety 40 s, silence 10 min. */
const SCHEDULE = { jitter: 0 };

/**
 * Orders and withdrawals in memory, read through a reader whose reads are counted (with their fake
 * time); `failing` makes every read fail as the service would (`'service'`: 503) or as a refused
 * secret does (`'secret'`: 401).
 */
function service() {
  const orders = new Map<string, { status: string; tradeId: string | null }>();
  const withdrawals = new Map<string, string>();
  const reads: { id: string; at: number }[] = [];
  let failing: 'service' | 'secret' | undefined;
  const read = (id: string): void => {
    reads.push({ id, at: Date.now() });
    if (failing === 'service') throw new ServerError('unavailable', { status: 503 });
    if (failing === 'secret') throw new AuthenticationError('secret refused', { status: 401 });
  };
  const client: StatusReader = {
    getOrderByExternalId: async (externalId) => {
      read(externalId);
      const order = orders.get(externalId);
      if (order === undefined) throw new NotFoundError(`order ${externalId} not found`, { status: 404 });
      return { externalId, currency: 'USDT', settlement: { status: order.status, tradeId: order.tradeId } };
    },
    getWithdrawalByExternalId: async (externalId) => {
      read(externalId);
      const status = withdrawals.get(externalId);
      if (status === undefined) throw new NotFoundError(`withdrawal ${externalId} not found`, { status: 404 });
      return { externalId, status };
    },
  };
  return {
    orders,
    withdrawals,
    client,
    fail: (how: 'service' | 'secret' | undefined) => (failing = how),
    /** Reads of `id` in the last `ms` of fake time. */
    readsOf: (id: string, ms: number) => reads.filter((r) => r.id === id && r.at > Date.now() - ms).length,
  };
}

function track(client: StatusReader, store: StatusStore = new MemoryStatusStore(), options: { webhookSilenceMs?: number } = {}) {
  const changes: (StatusChange & { at: number })[] = [];
  const tracker = createStatusTracker({
    client,
    store,
    logger: false,
    schedule: { ...SCHEDULE, ...options },
    onChange: (change) => {
      changes.push({ ...change, at: Date.now() });
    },
  });
  trackers.push(tracker);
  tracker.start();
  const changeOf = (id: string, status: string | null) => changes.find((c) => c.externalId === id && c.status === status);
  return { tracker, changes, changeOf };
}

async function advance(ms: number, stepMs = 250): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += stepMs) await vi.advanceTimersByTimeAsync(Math.min(stepMs, ms - elapsed));
}

/** Some other record's event, so that the store has seen events flow. */
async function eventElsewhere(tracker: StatusTracker, id = 'elsewhere'): Promise<void> {
  await tracker.nudge('withdrawal', id, { event: createEvent('pix.withdrawal.settled', { withdrawalId: id }) });
}

describe('webhooks first: the schedule follows what an event announces', () => {
  it('an order whose trade exists is read at the safety pace while events flow; its lost webhook still arrives within 40 s', async () => {
    const { orders, client, readsOf } = service();
    orders.set('o-1', { status: 'Processing', tradeId: 't-1' });
    const { tracker, changeOf } = track(client);
    await eventElsewhere(tracker);
    await tracker.watchOrder('o-1');
    await advance(1_000);
    expect(changeOf('o-1', 'Processing')).toBeDefined();
    await advance(200_000);
    // at 2 s it would be ~100 reads; at 40 s, 5
    expect(readsOf('o-1', 200_000)).toBeGreaterThanOrEqual(4);
    expect(readsOf('o-1', 200_000)).toBeLessThanOrEqual(6);
    // the settlement whose webhook never comes
    orders.set('o-1', { status: 'Settled', tradeId: 't-1' });
    const settledAt = Date.now();
    await advance(41_000);
    const settled = changeOf('o-1', 'Settled');
    expect(settled).toMatchObject({ source: 'poll' });
    expect(settled!.at - settledAt).toBeLessThanOrEqual(40_500);
    // a change an event announces that a read found first is counted
    expect((await tracker.health()).webhooks.foundFirstByRead).toBe(1);
  });

  it('a withdrawal is announced: safety pace from its first read; its event reads it at once', async () => {
    const { withdrawals, client, readsOf } = service();
    withdrawals.set('w-1', 'Processing');
    const { tracker, changeOf } = track(client);
    await eventElsewhere(tracker);
    await tracker.watchWithdrawal('w-1');
    await advance(120_000);
    expect(readsOf('w-1', 120_000)).toBeLessThanOrEqual(4);
    withdrawals.set('w-1', 'Completed');
    const completedAt = Date.now();
    await tracker.nudge('withdrawal', 'w-1', { event: createEvent('pix.withdrawal.settled', { withdrawalId: 'w-1' }) });
    await advance(1_000, 50);
    const completed = changeOf('w-1', 'Completed');
    expect(completed).toMatchObject({ source: 'webhook' });
    expect(completed!.at - completedAt).toBeLessThanOrEqual(1_000);
    expect((await tracker.health()).webhooks.foundFirstByRead).toBe(0);
  });

  it('unannounced changes keep the fast pace while the checkout could be open: the first milestone, a BRZ order', async () => {
    const { orders, client, readsOf } = service();
    orders.set('pending', { status: 'Pending', tradeId: null });
    orders.set('brz', { status: 'Pending', tradeId: null });
    const { tracker, changeOf } = track(client);
    await eventElsewhere(tracker);
    await tracker.watchOrder('pending');
    await tracker.watchOrder('brz');
    await advance(60_000);
    expect(readsOf('pending', 60_000)).toBeGreaterThanOrEqual(28);
    // the trade appears: no event announces it, a fast read finds it
    orders.set('pending', { status: 'Processing', tradeId: 't-2' });
    orders.set('brz', { status: 'Settled', tradeId: null });
    const changedAt = Date.now();
    await advance(3_000);
    expect(changeOf('pending', 'Processing')!.at - changedAt).toBeLessThanOrEqual(2_500);
    expect(changeOf('brz', 'Settled')!.at - changedAt).toBeLessThanOrEqual(2_500);
    // and from then on the order awaits an announced change: the safety pace
    await advance(120_000);
    expect(readsOf('pending', 120_000)).toBeLessThanOrEqual(4);
    // a BRZ settlement is no event's: not counted as found first
    expect((await tracker.health()).webhooks.foundFirstByRead).toBe(0);
  });

  it('no event for webhookSilenceMs: announced changes are read fast; events flowing again bring the safety pace back', async () => {
    const { orders, client, readsOf } = service();
    orders.set('o-3', { status: 'Processing', tradeId: 't-3' });
    const store = new MemoryStatusStore();
    const { tracker } = track(client, store);
    // no event ever: a partner that only polls keeps the fast pace
    await tracker.watchOrder('o-3');
    await advance(60_000);
    expect(readsOf('o-3', 60_000)).toBeGreaterThanOrEqual(28);
    expect((await tracker.health()).webhooks.lastEventAt).toBeUndefined();
    // events flow: the safety pace from the next read on
    await eventElsewhere(tracker);
    const health = await tracker.health();
    expect(health.webhooks.lastEventAt).toBeTypeOf('number');
    await advance(5_000);
    await advance(120_000);
    expect(readsOf('o-3', 120_000)).toBeLessThanOrEqual(4);
    // ten minutes without an event (an endpoint broken): fast again, while the checkout could be open
    await advance(600_000);
    await tracker.watchOrder('o-4');
    orders.set('o-4', { status: 'Processing', tradeId: 't-4' });
    await advance(60_000);
    expect(readsOf('o-4', 60_000)).toBeGreaterThanOrEqual(28);
    // events flow again (another process's webhook handler): the safety pace once the store is asked again
    await store.nudge('withdrawal', 'w-back', { event: createEvent('pix.withdrawal.settled', { withdrawalId: 'w-back' }) });
    await advance(10_000);
    await advance(120_000);
    expect(readsOf('o-4', 120_000)).toBeLessThanOrEqual(4);
  });

  it('events that reach the store from another process count: the store is asked, not only this tracker', async () => {
    const { orders, client, readsOf } = service();
    orders.set('o-5', { status: 'Processing', tradeId: 't-5' });
    const store = new MemoryStatusStore();
    // another process's webhook handler nudged with an event
    await store.nudge('withdrawal', 'w-other', { event: createEvent('pix.withdrawal.settled', { withdrawalId: 'w-other' }) });
    const { tracker } = track(client, store);
    await tracker.watchOrder('o-5');
    await advance(120_000);
    expect(readsOf('o-5', 120_000)).toBeLessThanOrEqual(4);
    expect((await tracker.health()).webhooks.lastEventAt).toBeTypeOf('number');
  });

  it('a nudge whose read already shows what its event announced no longer keeps the fast pace', async () => {
    const { orders, client, readsOf } = service();
    orders.set('o-6', { status: 'Settled', tradeId: 't-6' });
    const changes: StatusChange[] = [];
    // a partner that keeps watching settled orders
    const tracker = createStatusTracker({
      client,
      logger: false,
      isFinal: () => false,
      schedule: { ...SCHEDULE, fastForMs: 60_000 },
      onChange: (change) => void changes.push(change),
    });
    trackers.push(tracker);
    tracker.start();
    await tracker.watchOrder('o-6');
    await advance(400_000);
    expect(changes.map((c) => c.status)).toEqual(['Settled']);
    // the webhook comes late: one read at once, then the slow schedule, not 10 minutes at 2 s
    const before = readsOf('o-6', 1_000_000);
    await tracker.nudge('order', 'o-6', { event: createEvent('otc.trade.settled', { tradeId: 't-6' }) });
    await advance(1_000, 50);
    expect(readsOf('o-6', 1_000_000)).toBe(before + 1);
    await advance(60_000);
    expect(readsOf('o-6', 1_000_000)).toBeLessThanOrEqual(before + 2);
  });

  it('an event whose read does not show its change yet keeps the record at the fast pace (never lost)', async () => {
    const { withdrawals, client, readsOf } = service();
    withdrawals.set('w-2', 'Processing');
    const { tracker, changeOf } = track(client);
    await eventElsewhere(tracker);
    await tracker.watchWithdrawal('w-2');
    await advance(1_000);
    await tracker.nudge('withdrawal', 'w-2', { event: createEvent('pix.withdrawal.settled', { withdrawalId: 'w-2' }) });
    await advance(20_000);
    expect(readsOf('w-2', 20_000)).toBeGreaterThanOrEqual(9);
    withdrawals.set('w-2', 'Completed');
    await advance(2_500);
    expect(changeOf('w-2', 'Completed')).toMatchObject({ source: 'webhook' });
  });
});

describe('a store that does not say when the last event came', () => {
  /** The memory store seen through the StatusStore interface without `lastEvent` (a custom store of 1.1). */
  function withoutLastEvent(store: MemoryStatusStore): StatusStore {
    const methods = [
      'watch',
      'unwatch',
      'nudge',
      'claimDue',
      'extend',
      'commit',
      'reschedule',
      'release',
      'reclaim',
      'get',
      'overdue',
    ] as const;
    return Object.fromEntries(methods.map((name) => [name, store[name].bind(store)])) as unknown as StatusStore;
  }

  it('the tracker goes by the events nudged through itself; events it never saw leave the fast pace', async () => {
    const { orders, client, readsOf } = service();
    orders.set('c-1', { status: 'Processing', tradeId: 't-c1' });
    const memory = new MemoryStatusStore();
    const { tracker } = track(client, withoutLastEvent(memory));
    // another process's event: this tracker cannot know of it
    await memory.nudge('withdrawal', 'w-other', { event: createEvent('pix.withdrawal.settled', { withdrawalId: 'w-other' }) });
    await tracker.watchOrder('c-1');
    await advance(60_000);
    expect(readsOf('c-1', 60_000)).toBeGreaterThanOrEqual(28);
    expect((await tracker.health()).webhooks.lastEventAt).toBeUndefined();
    // one nudged through it: events flow, as far as it knows
    await eventElsewhere(tracker);
    expect((await tracker.health()).webhooks.lastEventAt).toBeTypeOf('number');
    await advance(5_000);
    await advance(120_000);
    expect(readsOf('c-1', 120_000)).toBeLessThanOrEqual(4);
  });
});

describe('the new schedule options', () => {
  it('refuses a safetyIntervalMs or webhookSilenceMs that is not a positive number of milliseconds, naming it', () => {
    const { client } = service();
    const make = (schedule: Record<string, unknown>) => () => createStatusTracker({ client, onChange: () => {}, schedule });
    expect(make({ safetyIntervalMs: 0 })).toThrow(/schedule\.safetyIntervalMs/);
    expect(make({ safetyIntervalMs: '40s' })).toThrow(TypeError);
    expect(make({ webhookSilenceMs: -1 })).toThrow(/schedule\.webhookSilenceMs/);
    expect(make({ webhookSilenceMs: Number.NaN })).toThrow(TypeError);
    expect(make({ safetyIntervalMs: 10_000, webhookSilenceMs: 3_600_000 })).not.toThrow();
  });
});

describe('back on its feet in every phase', () => {
  it('an outage in the slow phase: the record whose read failed is read within seconds of recovery, not a slow interval later', async () => {
    const { orders, client, fail } = service();
    orders.set('slow', { status: 'Pending', tradeId: null });
    const changes: (StatusChange & { at: number })[] = [];
    const tracker = createStatusTracker({
      client,
      logger: false,
      schedule: { ...SCHEDULE, fastForMs: 60_000 },
      onChange: (change) => void changes.push({ ...change, at: Date.now() }),
    });
    trackers.push(tracker);
    tracker.start();
    await tracker.watchOrder('slow');
    // past the fast period the waits double: reads at ~188 s, ~316 s, then ~572 s
    await advance(300_000);
    fail('service');
    await advance(10_000);
    orders.set('slow', { status: 'Settled', tradeId: null });
    await advance(20_000);
    expect((await tracker.health()).overdue).toBe(1);
    fail(undefined);
    const recoveredAt = Date.now();
    await advance(5_000);
    const settled = changes.find((c) => c.status === 'Settled');
    expect(settled).toBeDefined();
    expect(settled!.at - recoveredAt).toBeLessThanOrEqual(4_000);
    expect(await tracker.health()).toMatchObject({ overdue: 0, oldestOverdueMs: 0 });
  });

  it('after an outage the records an event nudged meanwhile are read first, and never more than maxConcurrentReads at once', async () => {
    const { orders, client, fail } = service();
    for (let i = 0; i < 30; i++) orders.set(`r-${i}`, { status: 'Pending', tradeId: null });
    orders.set('hot', { status: 'Processing', tradeId: 't-hot' });
    let inFlight = 0;
    let most = 0;
    const order: string[] = [];
    const counting: StatusReader = {
      getOrderByExternalId: async (id, options) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        try {
          await new Promise((resolve) => setTimeout(resolve, 100));
          const record = await client.getOrderByExternalId(id, options);
          order.push(id);
          return record;
        } finally {
          inFlight -= 1;
        }
      },
      getWithdrawalByExternalId: client.getWithdrawalByExternalId,
    };
    const tracker = createStatusTracker({ client: counting, logger: false, maxConcurrentReads: 4, schedule: SCHEDULE, onChange: () => {} });
    trackers.push(tracker);
    tracker.start();
    for (let i = 0; i < 30; i++) await tracker.watchOrder(`r-${i}`);
    await tracker.watchOrder('hot');
    await advance(5_000);
    fail('service');
    await advance(10_000);
    orders.set('hot', { status: 'Settled', tradeId: 't-hot' });
    await tracker.nudge('order', 'hot', { event: createEvent('otc.trade.settled', { tradeId: 't-hot' }) });
    await advance(20_000);
    fail(undefined);
    order.length = 0;
    most = 0;
    await advance(5_000, 50);
    expect(order.slice(0, 4)).toContain('hot');
    expect(most).toBeLessThanOrEqual(4);
    expect(new Set(order).size).toBe(31);
  });

  it('a record whose reads alone answer 503 while others succeed settles back to its own schedule, not a fast read forever', async () => {
    const { orders, client } = service();
    orders.set('fine', { status: 'Pending', tradeId: null });
    orders.set('broken', { status: 'Pending', tradeId: null });
    let brokenReads = 0;
    const reader: StatusReader = {
      getOrderByExternalId: async (id, options) => {
        if (id !== 'broken') return client.getOrderByExternalId(id, options);
        brokenReads += 1;
        throw new ServerError('this one fails', { status: 503 });
      },
      getWithdrawalByExternalId: client.getWithdrawalByExternalId,
    };
    const tracker = createStatusTracker({ client: reader, logger: false, schedule: { jitter: 0, fastForMs: 10_000 }, onChange: () => {} });
    trackers.push(tracker);
    tracker.start();
    await tracker.watchOrder('fine');
    await tracker.watchOrder('broken');
    await advance(600_000);
    // its normal schedule: 5 reads in its fast period, then 2, 2, 4, ... 256 s apart (about 15);
    // at a fixed 2 s it would be about 300
    expect(brokenReads).toBeGreaterThanOrEqual(10);
    expect(brokenReads).toBeLessThanOrEqual(30);
  });

  it('a refused secret: the records it failed are read as soon as a call succeeds again, not after their own back-off', async () => {
    const { orders, client, fail } = service();
    orders.set('pay', { status: 'Pending', tradeId: null });
    const { tracker, changeOf } = track(client);
    await tracker.watchOrder('pay');
    await advance(5_000);
    // the secret rotated at the provider, not yet here: every read refused for 25 s (a record's
    // own back-off would have its next read at ~31 s after the gap began)
    fail('secret');
    await advance(5_000);
    orders.set('pay', { status: 'Settled', tradeId: null });
    await advance(20_000);
    expect(changeOf('pay', 'Settled')).toBeUndefined();
    fail(undefined);
    const backAt = Date.now();
    await advance(5_000);
    expect(changeOf('pay', 'Settled')!.at - backAt).toBeLessThanOrEqual(2_500);
  });
});
