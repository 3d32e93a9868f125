import { createStatusTracker, MemoryStatusStore, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAKE_TIMERS, fakeService, recorder } from './helpers.js';

// API.md "Health": tracker.health() from the tracker and its store, so a backlog or a dead tracker
// shows; the handler's health() for probes.

let tracker: StatusTracker | undefined;
beforeEach(() => vi.useFakeTimers(FAKE_TIMERS));
afterEach(async () => {
  const draining = tracker?.drain({ timeoutMs: 1_000 });
  await vi.advanceTimersByTimeAsync(1_000);
  await draining;
  tracker = undefined;
  vi.useRealTimers();
});

const SCHEDULE = { fastIntervalMs: 2_000, fastForMs: 600_000, jitter: 0 };

describe('tracker.health()', () => {
  it('a tracker never started: not running, and the watched records are overdue, more so as time passes', async () => {
    const { fake, client } = fakeService();
    fake.setOrder({ externalId: 'h-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    tracker = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: () => {}, schedule: SCHEDULE, logger: false });
    await tracker.watchOrder('h-1');
    await tracker.watchWithdrawal('w-1');
    await vi.advanceTimersByTimeAsync(1_000);
    const first = await tracker.health();
    expect(first).toEqual({
      running: false,
      draining: false,
      started: false,
      live: true,
      ready: false,
      inHand: 0,
      overdue: 2,
      oldestOverdueMs: 1_000,
      lastClaimAt: undefined,
      webhooks: { lastEventAt: undefined, foundFirstByRead: 0 },
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await tracker.health()).toMatchObject({ overdue: 2, oldestOverdueMs: 6_000 });
  });

  it('running, nothing overdue once read; drained, the backlog grows again past the schedule', async () => {
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'h-2', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    const seen = recorder();
    tracker = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: seen.onChange, schedule: SCHEDULE, logger: false });
    tracker.start();
    await tracker.watchOrder('h-2');
    await advance(500);
    expect(seen.statuses('h-2')).toEqual(['Pending']);
    const running = await tracker.health();
    expect(running).toMatchObject({ running: true, draining: false, inHand: 0, overdue: 0, oldestOverdueMs: 0 });
    expect(running.lastClaimAt).toBeTypeOf('number');
    const draining = tracker.drain({ timeoutMs: 1_000 });
    expect(await tracker.health()).toMatchObject({ running: false, draining: true });
    await draining;
    await vi.advanceTimersByTimeAsync(10_000);
    const stopped = await tracker.health();
    expect(stopped).toMatchObject({ running: false, draining: false, overdue: 1 });
    // its next read was due ~2 s after the last one: about 8 s late now
    expect(stopped.oldestOverdueMs).toBeGreaterThan(7_000);
  });

  it('an outage: the records whose reads fail stay overdue and the oldest grows; the first answered read clears it', async () => {
    const { fake, client, advance } = fakeService();
    for (const id of ['h-3', 'h-4']) fake.setOrder({ externalId: id, currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    const seen = recorder();
    tracker = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: seen.onChange, schedule: SCHEDULE, logger: false });
    tracker.start();
    await tracker.watchOrder('h-3');
    await tracker.watchOrder('h-4');
    await advance(500);
    fake.failNext(10_000, 503, { only: 'business' });
    await advance(10_000);
    const during = await tracker.health();
    expect(during).toMatchObject({ running: true, overdue: 2 });
    await advance(10_000);
    const later = await tracker.health();
    expect(later.overdue).toBe(2);
    expect(later.oldestOverdueMs!).toBeGreaterThan(during.oldestOverdueMs! + 9_000);
    fake.reset();
    for (const id of ['h-3', 'h-4']) fake.setOrder({ externalId: id, currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
    await advance(5_000);
    expect(seen.statuses('h-3')).toEqual(['Pending', 'Settled']);
    expect(await tracker.health()).toMatchObject({ overdue: 0, oldestOverdueMs: 0 });
  });
});

describe('the probes: started, live, ready', () => {
  it('liveness holds through a store or service outage; readiness follows the store; { store: false } never waits on it', async () => {
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'p-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    const memory = new MemoryStatusStore();
    const down = { store: false };
    // a store that can be taken down: its claims fail, its backlog query never answers
    const store = new Proxy(memory, {
      get(target, property) {
        if (down.store && property === 'claimDue') return () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
        if (down.store && property === 'overdue') return () => new Promise<never>(() => undefined);
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    tracker = createStatusTracker({ client, store, onChange: () => {}, schedule: SCHEDULE, logger: false });
    const probes = async () => {
      const { started, live, ready } = await tracker!.health({ store: false });
      return { started, live, ready };
    };
    expect(await probes()).toEqual({ started: false, live: true, ready: false });
    tracker.start();
    await tracker.watchOrder('p-1');
    await advance(500);
    expect(await probes()).toEqual({ started: true, live: true, ready: true });

    down.store = true; // the database goes down for a minute
    await advance(60_000, 1_000);
    expect(await probes()).toEqual({ started: true, live: true, ready: false });
    const asked = tracker.health();
    const failed = expect(asked).rejects.toThrow(/overdue/);
    await vi.advanceTimersByTimeAsync(5_000);
    await failed;
    down.store = false;
    await advance(6_000);
    expect(await probes()).toEqual({ started: true, live: true, ready: true });

    fake.failNext(1_000, 503, { only: 'business' }); // the service goes down
    await advance(60_000, 1_000);
    expect(await probes()).toEqual({ started: true, live: true, ready: true });

    const draining = tracker.drain({ timeoutMs: 1_000 });
    expect(await probes()).toEqual({ started: true, live: true, ready: false });
    await vi.advanceTimersByTimeAsync(1_000);
    await draining;
  });

  it('a store that fails from the start: started once its first claim was tried, not ready', async () => {
    const { client, advance } = fakeService();
    const memory = new MemoryStatusStore();
    const store = new Proxy(memory, {
      get(target, property) {
        if (property === 'claimDue') return () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    tracker = createStatusTracker({ client, store, onChange: () => {}, logger: false });
    tracker.start();
    await advance(100);
    expect(await tracker.health({ store: false })).toMatchObject({ started: true, live: true, ready: false, lastClaimAt: undefined });
  });

  it('refuses a health option it does not know', async () => {
    const { client } = fakeService();
    tracker = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: () => {}, logger: false });
    await expect(tracker.health({ store: 'no' as unknown as boolean })).rejects.toThrow(TypeError);
    await expect(tracker.health({ stor: false } as never)).rejects.toThrow(/unknown option "stor"/);
  });
});

describe('handler.health()', () => {
  it('draining and the deliveries in hand', async () => {
    const { client } = fakeService();
    const handler = createWebhookHandler({
      secret: 'whsec_test',
      client,
      onEvent: () => {},
      resolveOrderExternalId: () => undefined,
      logger: false,
    });
    expect(handler.health()).toEqual({ draining: false, inHand: 0 });
    await handler.drain({ timeoutMs: 100 });
    expect(handler.health()).toEqual({ draining: true, inHand: 0 });
  });
});
