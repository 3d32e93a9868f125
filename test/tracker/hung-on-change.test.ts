import { HandlingAbandonedError } from 'checkout-partner-sdk';
import {
  createStatusTracker,
  MemoryStatusStore,
  type StatusChange,
  type StatusStore,
  type StatusTracker,
  type StatusTrackerOptions,
} from 'checkout-partner-sdk/tracker';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { installOtel, total, type Otel } from '../telemetry/otel.js';
import { FAKE_TIMERS, fakeService, recorder, warmUpTelemetry } from './helpers.js';

// An onChange that never settles: past maxHandlingMs, once drain() gave up on it, or once its lease
// is found lost, the tracker lets go of the record (no extension, change.signal aborted, logged and
// counted, no timer left), and another tracker hands the change over within one lease.

let otel: Otel;
beforeAll(async () => {
  otel = installOtel({ global: false });
  await warmUpTelemetry(otel.meterProvider);
});
afterAll(() => otel.uninstall());

const trackers: StatusTracker[] = [];
beforeEach(() => vi.useFakeTimers(FAKE_TIMERS));
afterEach(async () => {
  for (const tracker of trackers.splice(0)) {
    const drained = tracker.drain({ timeoutMs: 1_000 });
    await vi.advanceTimersByTimeAsync(1_000);
    await drained;
  }
  vi.useRealTimers();
});

/** The fake service with one order, and a tracker on `store` whose onChange never settles (it keeps what it gets). */
function hungTracker(store: StatusStore, options: Partial<StatusTrackerOptions> = {}) {
  const service = fakeService();
  service.fake.setOrder({ externalId: 'o-hung', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
  const changes: StatusChange[] = [];
  const seen = recorder();
  const tracker = createStatusTracker({
    client: service.client,
    store,
    owner: 'tracker-a',
    logger: seen.logger,
    meterProvider: otel.meterProvider,
    onChange: (change) => {
      changes.push(change);
      return new Promise<void>(() => undefined);
    },
    ...options,
  });
  trackers.push(tracker);
  return { ...service, tracker, changes, log: seen.log };
}

/** A second tracker on `store` that records the changes it hands over. */
function otherTracker(store: StatusStore, client: StatusTrackerOptions['client']) {
  const seen = recorder();
  const tracker = createStatusTracker({ client, store, owner: 'tracker-b', logger: false, onChange: seen.onChange });
  trackers.push(tracker);
  tracker.start();
  return seen;
}

const abandoned = async (reason: string) =>
  total((await otel.metrics()).get('checkout.handling.abandoned'), {
    'checkout.handling.callback': 'onChange',
    'checkout.handling.reason': reason,
  });

describe('an onChange that never settles', () => {
  it('past maxHandlingMs: signal aborted, logged and counted; another tracker hands the change over within one lease', async () => {
    const before = await abandoned('max-handling');
    const store = new MemoryStatusStore();
    const { tracker, client, changes, log, until, advance } = hungTracker(store, { maxHandlingMs: 3_000 });
    tracker.start();
    await tracker.watchOrder('o-hung');
    expect(await until(() => changes.length === 1, 1_000)).toBe(true);
    const signal = changes[0]!.signal;
    expect(Object.keys(changes[0]!)).not.toContain('signal'); // a spread or JSON leaves it out
    await advance(2_900, 100);
    expect(signal.aborted).toBe(false);
    await advance(200, 100);
    expect(signal.reason).toBeInstanceOf(HandlingAbandonedError);
    expect(signal.reason).toMatchObject({ reason: 'max-handling' });
    expect(log.at(-1)).toMatchObject({
      event: 'tracker.change-failed',
      kind: 'order',
      externalId: 'o-hung',
      status: 'Settled',
      error: { name: 'HandlingAbandonedError', message: expect.stringMatching(/^onChange for order "o-hung" ran past maxHandlingMs/) },
    });
    expect(log.at(-1)?.ms).toBeGreaterThanOrEqual(3_000);
    expect(await tracker.health()).toMatchObject({ inHand: 0 });
    expect(await abandoned('max-handling')).toBe(before + 1);

    // the lease, extended last before onChange began, lapses within 15 s; then a tracker (B, or A
    // itself, whose loop runs on) hands the change over again
    const other = otherTracker(store, client);
    const handedAgain = () => changes.length - 1 + other.changes.length;
    await advance(10_000);
    expect(handedAgain()).toBe(0);
    expect(await until(() => handedAgain() === 1, 5_000)).toBe(true);
  });

  it('keeps its lease until the default maxHandlingMs, 60 s', async () => {
    const store = new MemoryStatusStore();
    const { tracker, changes, advance, until } = hungTracker(store);
    tracker.start();
    await tracker.watchOrder('o-hung');
    expect(await until(() => changes.length === 1, 1_000)).toBe(true);
    await advance(59_000, 1_000);
    expect(changes[0]!.signal.aborted).toBe(false);
    await advance(1_500, 100);
    expect(changes[0]!.signal.reason).toMatchObject({ name: 'HandlingAbandonedError', reason: 'max-handling' });
  });

  it('once drain() gives up: the report lists it, the signal aborts, no timer is left, another tracker takes over within one lease', async () => {
    const before = await abandoned('drain');
    const store = new MemoryStatusStore();
    const { tracker, client, changes, log, until, advance } = hungTracker(store);
    tracker.start();
    await tracker.watchOrder('o-hung');
    expect(await until(() => changes.length === 1, 1_000)).toBe(true);
    const drained = tracker.drain({ timeoutMs: 2_000 });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await drained).toEqual({ drained: false, inHand: [{ work: 'tracker.record', kind: 'order', externalId: 'o-hung' }] });
    expect(changes[0]!.signal.reason).toMatchObject({ name: 'HandlingAbandonedError', reason: 'drain' });
    await advance(0);
    expect(await tracker.health()).toMatchObject({ running: false, inHand: 0 });
    expect(vi.getTimerCount()).toBe(0);
    expect(log.at(-1)).toMatchObject({ event: 'tracker.change-failed', externalId: 'o-hung', error: { name: 'HandlingAbandonedError' } });
    expect(await abandoned('drain')).toBe(before + 1);

    const other = otherTracker(store, client);
    expect(await until(() => other.changes.length === 1, 15_000)).toBe(true);
    expect(other.changes[0]).toMatchObject({ externalId: 'o-hung', status: 'Settled' });
  });

  it('once its lease is found lost: the signal aborts (lease-lost), logged as a lost lease', async () => {
    const memory = new MemoryStatusStore();
    // the extension before onChange holds; the heartbeat's find the lease gone
    let extensions = 0;
    const losing = new Proxy(memory, {
      get(target, property) {
        if (property === 'extend')
          return (...args: Parameters<StatusStore['extend']>) => (++extensions === 1 ? target.extend(...args) : Promise.resolve(false));
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const { tracker, changes, log, until } = hungTracker(losing);
    tracker.start();
    await tracker.watchOrder('o-hung');
    expect(await until(() => changes.length === 1, 1_000)).toBe(true);
    expect(await until(() => changes[0]!.signal.aborted, 6_000)).toBe(true);
    expect(changes[0]!.signal.reason).toMatchObject({ name: 'HandlingAbandonedError', reason: 'lease-lost' });
    expect(log.at(-1)).toMatchObject({ event: 'tracker.lease-lost', externalId: 'o-hung', error: { name: 'HandlingAbandonedError' } });
  });
});
