import { createStatusTracker, MemoryStatusStore, type StatusStore, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { MeterProvider, type Histogram } from '@opentelemetry/sdk-metrics';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settled } from '../helpers/fake-time.js';
import { installOtel, points, type Otel } from '../telemetry/otel.js';
import { FAKE_TIMERS, fakeService, recorder, warmUpTelemetry } from './helpers.js';

// checkout.tracker.lag and checkout.tracker.watched through the real OpenTelemetry SDK's metric reader.

let otel: Otel;
let tracker: StatusTracker | undefined;
beforeEach(() => {
  otel = installOtel();
});
afterEach(async () => {
  await tracker?.drain({ timeoutMs: 1_000 });
  tracker = undefined;
  vi.useRealTimers();
  await otel.uninstall();
});

/** Its recordings go nowhere. */
const warmUp = () => warmUpTelemetry(new MeterProvider());

/** A store that delegates to `memory` and leaves out what `omit` names (a store written before those optional parts). */
function olderStore(memory: MemoryStatusStore, omit: { dueAt?: boolean; countWatched?: boolean }): StatusStore {
  const store: StatusStore = {
    watch: (...args) => memory.watch(...args),
    unwatch: (...args) => memory.unwatch(...args),
    nudge: (...args) => memory.nudge(...args),
    claimDue: async (request) =>
      (await memory.claimDue(request)).map(({ dueAt, ...record }) => (omit.dueAt === true ? record : { ...record, dueAt })),
    extend: (...args) => memory.extend(...args),
    commit: (...args) => memory.commit(...args),
    reschedule: (...args) => memory.reschedule(...args),
    release: (...args) => memory.release(...args),
    reclaim: (...args) => memory.reclaim(...args),
    get: (...args) => memory.get(...args),
  };
  if (omit.countWatched !== true) store.countWatched = () => memory.countWatched();
  return store;
}

const lagPoints = async (match: Record<string, string>) => points((await otel.metrics()).get('checkout.tracker.lag'), match);
const histogram = (point: { value: unknown } | undefined) => point?.value as Histogram | undefined;

describe('checkout.tracker.lag', () => {
  it('measures how late a poll saw a change after its read was due', async () => {
    await warmUp();
    vi.useFakeTimers(FAKE_TIMERS);
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'lag-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    // an idle tracker looks for due records every 5 s, so the read due 2 s after the first is 3 s late
    tracker = createStatusTracker({ client, onChange: seen.onChange, logger: false, claimIntervalMs: 5_000, schedule: { jitter: 0 } });
    tracker.start();
    await advance(100);
    await tracker.watchOrder('lag-1');
    await advance(1_000);
    expect(seen.statuses('lag-1')).toEqual(['Pending']);
    fake.updateOrder('lag-1', { settlement: { status: 'Processing' } });
    await advance(5_000);
    expect(seen.statuses('lag-1')).toEqual(['Pending', 'Processing']);
    const [point] = await lagPoints({ 'checkout.record.kind': 'order', 'checkout.change.source': 'poll' });
    // one recording per change handed over: the first read (at once, lag ~0) and the late one (~3 s)
    expect(histogram(point)?.count).toBe(2);
    expect(histogram(point)?.min).toBeLessThan(0.3);
    expect(histogram(point)?.max).toBeGreaterThan(2.7);
    expect(histogram(point)?.max).toBeLessThan(3.3);
  });

  it('counts a webhook-nudged change from the nudge, not from its place ahead of the backlog', async () => {
    await warmUp();
    vi.useFakeTimers(FAKE_TIMERS);
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    fake.setWithdrawal({ externalId: 'lag-w', status: 'Completed' });
    tracker = createStatusTracker({ client, onChange: seen.onChange, logger: false });
    tracker.start();
    await tracker.nudge('withdrawal', 'lag-w', { event: { eventId: 'e-1', type: 'pix.withdrawal.settled' } });
    await advance(1_000);
    expect(seen.changes.map((c) => [c.status, c.source])).toEqual([['Completed', 'webhook']]);
    const [point] = await lagPoints({ 'checkout.record.kind': 'withdrawal', 'checkout.change.source': 'webhook' });
    expect(histogram(point)?.count).toBe(1);
    // the store puts it a day before the nudge to be read first; the lag is the read's, under a second
    expect(histogram(point)?.max).toBeLessThan(1);
  });

  it('is not recorded for a store that gives no dueAt (optional in the contract)', async () => {
    vi.useFakeTimers(FAKE_TIMERS);
    const { fake, client } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'lag-2', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
    const store = olderStore(new MemoryStatusStore(), { dueAt: true, countWatched: true });
    tracker = createStatusTracker({ client, store, onChange: seen.onChange, logger: false, claimIntervalMs: 10 });
    tracker.start();
    await tracker.watchOrder('lag-2');
    await settled(seen.handed(1), 'the read did not happen');
    await settled(tracker.drain({ timeoutMs: 1_000 }), 'the tracker did not drain'); // the turn that handed it over finished (its recordings made)
    expect(await lagPoints({})).toEqual([]);
    expect(points((await otel.metrics()).get('checkout.tracker.watched'))).toEqual([]);
  });
});

describe('checkout.tracker.watched', () => {
  const watchedPoints = async () => points((await otel.metrics()).get('checkout.tracker.watched'));

  it('reports the store count while started, and stops asking the store once drained', async () => {
    vi.useFakeTimers(FAKE_TIMERS);
    const { fake, client, until } = fakeService();
    const seen = recorder();
    const memory = new MemoryStatusStore();
    const store = olderStore(memory, {});
    const counted = vi.spyOn(store, 'countWatched');
    fake.setOrder({ externalId: 'g-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    fake.setOrder({ externalId: 'g-2', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    tracker = createStatusTracker({ client, store, onChange: seen.onChange, logger: false, claimIntervalMs: 10 });
    await tracker.watchOrder('g-1');
    await tracker.watchOrder('g-2');
    await tracker.watchWithdrawal('g-3');
    // registered at start(), not before
    expect(await watchedPoints()).toEqual([]);
    tracker.start();
    expect(await until(async () => (await watchedPoints())[0]?.value === 3, 5_000)).toBe(true);
    expect((await watchedPoints())[0]?.attributes).toEqual({});
    fake.updateOrder('g-1', { settlement: { status: 'Settled' } });
    expect(await until(async () => (await watchedPoints())[0]?.value === 2, 10_000)).toBe(true);
    await settled(tracker.drain({ timeoutMs: 1_000 }), 'the tracker did not drain');
    const calls = counted.mock.calls.length;
    await memory.watch('order', 'g-4');
    // the SDK keeps a gauge's last value; the tracker no longer reports a new one
    expect((await watchedPoints()).map((p) => p.value)).toEqual([2]);
    expect(counted.mock.calls.length).toBe(calls);
    // a restart registers it again, once
    tracker.start();
    expect(await until(async () => (await watchedPoints())[0]?.value === 3, 5_000)).toBe(true);
    const before = counted.mock.calls.length;
    await otel.metrics();
    expect(counted.mock.calls.length).toBe(before + 1);
  });
});

describe('checkout.tracker.overdue, checkout.tracker.oldest_overdue and checkout.tracker.failures', () => {
  const value = async (name: string, match: Record<string, string> = {}) => points((await otel.metrics()).get(name), match)[0]?.value;
  const READ_FAILED = { 'checkout.tracker.failure': 'tracker.read-failed', 'error.type': 'ServerError' };

  it('report the backlog of an outage by name from start() until drain(), and count each failed read', async () => {
    await warmUp();
    vi.useFakeTimers(FAKE_TIMERS);
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    for (const id of ['m-1', 'm-2']) fake.setOrder({ externalId: id, currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    const store = new MemoryStatusStore();
    const overdue = vi.spyOn(store, 'overdue');
    tracker = createStatusTracker({
      client,
      store,
      onChange: seen.onChange,
      logger: false,
      schedule: { fastIntervalMs: 1_000, jitter: 0 },
    });
    await tracker.watchOrder('m-1');
    await tracker.watchOrder('m-2');
    await advance(2_000);
    // registered at start(), not before
    expect(await value('checkout.tracker.overdue')).toBeUndefined();
    expect(overdue).not.toHaveBeenCalled();
    fake.failNext(1_000_000, 503, { only: 'business' });
    tracker.start();
    await advance(3_000);
    expect(seen.changes).toEqual([]);
    expect(await value('checkout.tracker.overdue')).toBe(2);
    // owed since the watch, 5 s ago (in seconds)
    expect(await value('checkout.tracker.oldest_overdue')).toBe(5);
    const failedReads = await value('checkout.tracker.failures', READ_FAILED);
    expect(failedReads).toBeGreaterThanOrEqual(2);
    await advance(2_000);
    expect(await value('checkout.tracker.oldest_overdue')).toBe(7);
    const failedBefore = await value('checkout.tracker.failures', READ_FAILED);
    expect(failedBefore).toBeGreaterThanOrEqual(failedReads as number);
    // the service answers: both read, nothing overdue
    fake.reset();
    for (const id of ['m-1', 'm-2'])
      fake.setOrder({ externalId: id, currency: 'BRZ', settlement: { status: 'Processing', tradeId: null } });
    await advance(2_000);
    expect(seen.statuses('m-1')).toEqual(['Processing']);
    expect(await value('checkout.tracker.overdue')).toBe(0);
    expect(await value('checkout.tracker.oldest_overdue')).toBe(0);
    // no failure since: the counter stays where it was
    expect(await value('checkout.tracker.failures', READ_FAILED)).toBe(failedBefore);
    const draining = tracker.drain({ timeoutMs: 1_000 });
    await advance(1_000);
    await draining;
    const asked = overdue.mock.calls.length;
    await advance(5_000);
    // the SDK keeps a gauge's last value; the tracker no longer asks the store
    expect(await value('checkout.tracker.overdue')).toBe(0);
    expect(overdue.mock.calls.length).toBe(asked);
  });

  it('counts a record failing on its own by what failed and the error name', async () => {
    await warmUp();
    vi.useFakeTimers(FAKE_TIMERS);
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'm-3', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    tracker = createStatusTracker({
      client,
      onChange: () => {
        throw new RangeError('partner bug');
      },
      logger: false,
      schedule: { retryDelayMs: 1_000, jitter: 0 },
    });
    tracker.start();
    await tracker.watchOrder('m-3');
    await advance(2_500);
    const failed = await value('checkout.tracker.failures', {
      'checkout.tracker.failure': 'tracker.change-failed',
      'error.type': 'RangeError',
    });
    expect(failed).toBeGreaterThanOrEqual(2);
    expect(await value('checkout.tracker.failures', { 'checkout.tracker.failure': 'tracker.read-failed' })).toBeUndefined();
  });
});

describe('checkout.tracker.found_first_by_read', () => {
  const value = async (match: Record<string, string>) =>
    points((await otel.metrics()).get('checkout.tracker.found_first_by_read'), match)[0]?.value;

  it('counts each announced change a poll found before its event, by kind; not one an event read, nor an unannounced one', async () => {
    await warmUp();
    vi.useFakeTimers(FAKE_TIMERS);
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'ff-1', currency: 'USDT', settlement: { status: 'Processing', tradeId: 't-ff-1' } });
    fake.setOrder({ externalId: 'ff-brz', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    fake.setWithdrawal({ externalId: 'ff-w', status: 'Processing' });
    tracker = createStatusTracker({ client, onChange: seen.onChange, logger: false, schedule: { jitter: 0 } });
    tracker.start();
    for (const id of ['ff-1', 'ff-brz']) await tracker.watchOrder(id);
    await tracker.watchWithdrawal('ff-w');
    await advance(1_000);
    // settled silently (its webhook lost), and a BRZ order settled (no event announces it)
    fake.settleOrder('ff-1', { tradeId: 't-ff-1' });
    fake.settleOrder('ff-brz');
    // completed, its webhook delivered: the event's read finds it
    fake.completeWithdrawal('ff-w');
    await tracker.nudge('withdrawal', 'ff-w', { event: { eventId: 'e-ff-w', type: 'pix.withdrawal.settled' } });
    await advance(3_000);
    expect(seen.statuses('ff-1')).toEqual(['Processing', 'Settled']);
    expect(seen.statuses('ff-brz')).toEqual(['Pending', 'Settled']);
    expect(seen.statuses('ff-w')).toEqual(['Processing', 'Completed']);
    expect(await value({ 'checkout.record.kind': 'order' })).toBe(1);
    expect(await value({ 'checkout.record.kind': 'withdrawal' })).toBeUndefined();
    expect((await tracker.health()).webhooks.foundFirstByRead).toBe(1);
  });
});
