import type { StatusReader } from 'checkout-partner-sdk';
import { NotFoundError } from 'checkout-partner-sdk';
import {
  createStatusTracker,
  MemoryStatusStore,
  StatusStoreTimeoutError,
  type StatusChange,
  type StatusStore,
  type StatusTracker,
} from 'checkout-partner-sdk/tracker';
import type { TransactionalStatusStore } from 'checkout-partner-sdk/stores';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAKE_TIMERS, recorder } from './helpers.js';

const HOUR = 3_600_000;
let trackers: StatusTracker[] = [];

beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(async () => {
  const draining = Promise.all(trackers.map((tracker) => tracker.drain({ timeoutMs: 1_000 })));
  await vi.advanceTimersByTimeAsync(2_000);
  await draining;
  trackers = [];
  vi.useRealTimers();
});

function track(options: Parameters<typeof createStatusTracker>[0]): StatusTracker {
  const tracker = createStatusTracker(options);
  trackers.push(tracker);
  tracker.start();
  return tracker;
}

/** A service of orders in memory (no tokens, so no clock of its own): `reads` counts reads by externalId. */
function orders() {
  const records = new Map<string, string>();
  const reads = new Map<string, number>();
  const client: StatusReader = {
    getOrderByExternalId: async (externalId) => {
      reads.set(externalId, (reads.get(externalId) ?? 0) + 1);
      const status = records.get(externalId);
      if (status === undefined) throw new NotFoundError(`order ${externalId} not found`, { status: 404 });
      return { externalId, currency: 'BRZ', settlement: { status, tradeId: null } };
    },
    getWithdrawalByExternalId: () => Promise.reject(new Error('unused')),
  };
  return { records, reads, client };
}

/** A store that is `memory` (its methods bound to it) but for `overrides`. */
function wrap(memory: MemoryStatusStore, overrides: Partial<StatusStore>): StatusStore {
  const store: StatusStore = {
    watch: memory.watch.bind(memory),
    unwatch: memory.unwatch.bind(memory),
    nudge: memory.nudge.bind(memory),
    claimDue: memory.claimDue.bind(memory),
    extend: memory.extend.bind(memory),
    commit: memory.commit.bind(memory),
    reschedule: memory.reschedule.bind(memory),
    release: memory.release.bind(memory),
    reclaim: memory.reclaim.bind(memory),
    get: memory.get.bind(memory),
  };
  return Object.assign(store, overrides);
}

/** Advances the fake clocks (timers, Date, performance.now()) by `ms`, in steps, letting promises settle. */
async function advance(ms: number, stepMs = 100): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += stepMs) await vi.advanceTimersByTimeAsync(Math.min(stepMs, ms - elapsed));
}

/** Steps the wall clock only (an NTP step): Date moves, performance.now() and timers do not. */
function stepWallClock(ms: number): void {
  const monotonic = performance.now();
  vi.setSystemTime(Date.now() + ms);
  // the premise of these tests: the fake wall clock moved, the monotonic clock did not
  expect(performance.now()).toBe(monotonic);
}

describe("one clock: a wall-clock step on the tracker's host", () => {
  it.each([
    ['forward 1 hour', HOUR],
    ['back 1 hour', -HOUR],
    ['forward 90 s', 90_000],
  ])('stepped %s while onChange runs: the change is handed over once, and polling keeps its pace', async (_, step) => {
    const { records, reads, client } = orders();
    const seen = recorder();
    let running = 0;
    let overlapped = false;
    records.set('brz-1', 'Pending');
    const store = new MemoryStatusStore();
    const tracker = track({
      client,
      store,
      leaseMs: 60_000,
      logger: seen.logger,
      onChange: async (change) => {
        running += 1;
        if (running > 1) overlapped = true;
        // a 1.5 s onChange, the wall clock stepping in the middle of it
        await new Promise((resolve) => setTimeout(resolve, 750));
        if (change.status === 'Pending') stepWallClock(step);
        await new Promise((resolve) => setTimeout(resolve, 750));
        running -= 1;
        seen.onChange(change);
      },
    });
    await tracker.watchOrder('brz-1');
    await advance(10_000);
    expect(seen.statuses('brz-1')).toEqual(['Pending']);
    expect(overlapped).toBe(false);
    expect(seen.log.filter((e) => e.event === 'tracker.lease-lost' || e.event === 'tracker.store-failed')).toEqual([]);
    // after the step, the record is still read every fastIntervalMs (2 s, jitter ±20%)
    const before = reads.get('brz-1')!;
    await advance(20_000);
    expect(reads.get('brz-1')! - before).toBeGreaterThanOrEqual(8);
    // a BRZ order (no webhook) settles: read within one interval (2.4 s at most), handed over (1.5 s)
    records.set('brz-1', 'Settled');
    await advance(4_000);
    expect(seen.statuses('brz-1')).toEqual(['Pending', 'Settled']);
    expect(overlapped).toBe(false);
    expect((await store.get('order', 'brz-1'))?.watching).toBe(false);
  });

  it('a step back of 1 hour between reads never stops the schedule of a record just watched', async () => {
    const { records, reads, client } = orders();
    const seen = recorder();
    records.set('o-1', 'Pending');
    const tracker = track({ client, onChange: seen.onChange, logger: seen.logger });
    await tracker.watchOrder('o-1');
    await advance(3_000);
    stepWallClock(-HOUR);
    const before = reads.get('o-1')!;
    await advance(10_000);
    expect(reads.get('o-1')! - before).toBeGreaterThanOrEqual(4);
  });

  it('ages come from the store: a step forward of 8 days does not end a young watch as max-age', async () => {
    const { records, client } = orders();
    const seen = recorder();
    const ends: unknown[] = [];
    records.set('o-2', 'Pending');
    const tracker = track({ client, onChange: seen.onChange, onWatchEnd: (end) => ends.push(end), logger: seen.logger });
    await tracker.watchOrder('o-2');
    await advance(3_000);
    stepWallClock(8 * 24 * HOUR);
    await advance(10_000);
    expect(ends).toEqual([]);
    expect(seen.log.filter((e) => e.event === 'tracker.give-up')).toEqual([]);
  });
});

describe('what is in hand is tracked by record', () => {
  it('a lease lost to this same process during onChange is adopted: onChange once, the change recorded once', async () => {
    const { records, client } = orders();
    const seen = recorder();
    const memory = new MemoryStatusStore();
    let extends_ = 0;
    // a store whose renewals stop answering after the first (the check before onChange)
    const store = wrap(memory, {
      extend: (...args) => (++extends_ === 1 ? memory.extend(...args) : new Promise<boolean>(() => {})),
    });
    records.set('o-3', 'Settled');
    let running = 0;
    let overlapped = false;
    let calls = 0;
    const tracker = track({
      client,
      store,
      leaseMs: 1_000,
      logger: seen.logger,
      onChange: async (change) => {
        calls += 1;
        running += 1;
        if (running > 1) overlapped = true;
        // three leases long: the lease lapses, and this process's next claim takes the record again
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        running -= 1;
        seen.onChange(change);
      },
    });
    await tracker.watchOrder('o-3');
    await advance(10_000);
    expect(calls).toBe(1);
    expect(overlapped).toBe(false);
    expect(seen.statuses('o-3')).toEqual(['Settled']);
    expect(seen.log.filter((e) => e.event === 'tracker.lease-lost')).toEqual([]);
    expect(seen.log.some((e) => e.event === 'tracker.change')).toBe(true);
    expect(await memory.get('order', 'o-3')).toMatchObject({ watching: false, handled: { status: 'Settled' } });
    // the hung renewals were given up and said so
    expect(seen.log.some((e) => e.event === 'tracker.store-failed' && e.error?.name === 'StatusStoreTimeoutError')).toBe(true);
  });
});

describe('a store that fails for a moment (a restart shorter than the lease)', () => {
  it('a reschedule that fails is retried while the lease lasts: the record keeps its schedule, nothing is logged', async () => {
    const { records, reads, client } = orders();
    const seen = recorder();
    const memory = new MemoryStatusStore();
    let reschedules = 0;
    const store = wrap(memory, {
      reschedule: (...args) => (++reschedules <= 2 ? Promise.reject(new Error('connection reset')) : memory.reschedule(...args)),
    });
    records.set('o-8', 'Pending');
    const calls: StatusChange[] = [];
    const schedule = { fastIntervalMs: 2_000, jitter: 0 };
    await track({
      client,
      store,
      leaseMs: 30_000,
      schedule,
      logger: seen.logger,
      onChange: (change) => void calls.push(change),
    }).watchOrder('o-8');
    await advance(500); // first read: Pending handed over (commit); nothing to reschedule yet
    await advance(2_000); // second read: the same status, its reschedule fails twice, then gets through
    expect(reschedules).toBe(3);
    await advance(2_000);
    // read again on its 2 s schedule, not after the 30 s lease
    expect(reads.get('o-8')).toBe(3);
    expect(calls.map((c) => c.status)).toEqual(['Pending']);
    expect(seen.log.filter((e) => e.event === 'tracker.store-failed' || e.event === 'tracker.lease-lost')).toEqual([]);
  });

  it('a transaction that fails (the store restarting) gives the record back: the change comes again in a second, not after the lease', async () => {
    const { records, reads, client } = orders();
    const seen = recorder();
    const memory = new MemoryStatusStore();
    let transactions = 0;
    const store: TransactionalStatusStore<{ id: string }> = {
      ...wrap(memory, {}),
      transact: async (lease, status, turn, work) => {
        transactions += 1;
        await work({ id: `tx-${transactions}` });
        // the first transaction is rolled back by the restart: nothing of it is recorded
        if (transactions === 1) throw new Error('terminating connection due to administrator command');
        return memory.commit(lease, status, turn);
      },
    };
    records.set('o-9', 'Settled');
    const calls: StatusChange[] = [];
    await track({ client, store, leaseMs: 30_000, logger: seen.logger, onChange: (change) => void calls.push(change) }).watchOrder('o-9');
    await advance(2_500);
    expect(seen.log.filter((e) => e.event === 'tracker.store-failed')).toHaveLength(1);
    expect(transactions).toBe(2);
    expect(reads.get('o-9')).toBe(2);
    expect(calls.map((c) => c.status)).toEqual(['Settled', 'Settled']); // the first one's writes were rolled back with it
    expect(await memory.get('order', 'o-9')).toMatchObject({ watching: false, handled: { status: 'Settled' } });
  });
});

describe('a store that never answers', () => {
  const hang = () => new Promise<never>(() => {});

  it('a commit that does not answer is retried while the lease lasts: onChange once, recorded once', async () => {
    const { records, client } = orders();
    const seen = recorder();
    const memory = new MemoryStatusStore();
    let commits = 0;
    const store = wrap(memory, { commit: (...args) => (++commits === 1 ? hang() : memory.commit(...args)) });
    records.set('o-7', 'Settled');
    const calls: StatusChange[] = [];
    await track({ client, store, leaseMs: 3_000, logger: seen.logger, onChange: (change) => void calls.push(change) }).watchOrder('o-7');
    await advance(5_000);
    expect(commits).toBe(2);
    expect(calls.map((c) => c.status)).toEqual(['Settled']);
    expect(await memory.get('order', 'o-7')).toMatchObject({ watching: false, handled: { status: 'Settled' } });
  });

  it('a commit that never answers is given up (store-failed); the record is given back under its renewed lease and the change handed over again', async () => {
    const { records, client } = orders();
    const seen = recorder();
    const memory = new MemoryStatusStore();
    let hung = true;
    const store = wrap(memory, { commit: (...args) => (hung ? hang() : memory.commit(...args)) });
    records.set('o-4', 'Settled');
    const calls: StatusChange[] = [];
    await track({ client, store, leaseMs: 3_000, logger: seen.logger, onChange: (change) => void calls.push(change) }).watchOrder('o-4');
    await advance(5_000);
    const failed = seen.log.filter((e) => e.event === 'tracker.store-failed');
    expect(failed[0]?.error).toMatchObject({
      name: 'StatusStoreTimeoutError',
      message: 'status store commit did not answer within 1000 ms',
    });
    // nothing was recorded; the heartbeat kept the lease while the commit was retried, so the record
    // was given back to be read again in a second (not left for the lease to lapse): handed over again
    expect(calls.map((c) => c.status)).toEqual(['Settled', 'Settled']);
    hung = false;
    await advance(10_000);
    expect(calls.map((c) => c.status)).toEqual(['Settled', 'Settled']);
    expect(await memory.get('order', 'o-4')).toMatchObject({ watching: false, handled: { status: 'Settled' } });
  });

  it('a release that never answers does not hold drain() past its timeout, nor at all past the store limit', async () => {
    const memory = new MemoryStatusStore();
    const store = wrap(memory, { release: hang });
    const seen = recorder();
    let started = 0;
    const hanging: StatusReader = {
      // a read that ends only when its signal aborts
      getOrderByExternalId: (_id, options) => {
        started += 1;
        return new Promise<never>((_, reject) =>
          options?.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true }),
        );
      },
      getWithdrawalByExternalId: hang,
    };
    const tracker = createStatusTracker({ client: hanging, store, leaseMs: 3_000, logger: seen.logger, onChange: () => {} });
    tracker.start();
    await tracker.watchOrder('o-5');
    await advance(500);
    expect(started).toBe(1);
    const drained = tracker.drain({ timeoutMs: 5_000 });
    await advance(1_100);
    // the release was given up after 1 s (leaseMs / 3): drain is done, well before its own timeout
    expect(await drained).toEqual({ drained: true, inHand: [] });
    expect(seen.log.some((e) => e.event === 'tracker.store-failed' && e.error?.name === 'StatusStoreTimeoutError')).toBe(true);
    expect(new StatusStoreTimeoutError('release', 1_000).operation).toBe('release');
  });

  it('a claim that never answers is given up and retried; the tracker keeps polling once the store answers', async () => {
    const { records, client } = orders();
    const seen = recorder();
    const memory = new MemoryStatusStore();
    let claims = 0;
    const store = wrap(memory, { claimDue: (...args) => (++claims <= 2 ? hang() : memory.claimDue(...args)) });
    records.set('o-6', 'Pending');
    const tracker = track({ client, store, leaseMs: 3_000, logger: seen.logger, onChange: seen.onChange });
    await tracker.watchOrder('o-6');
    await advance(8_000);
    expect(seen.log.filter((e) => e.event === 'tracker.store-failed' && e.error?.name === 'StatusStoreTimeoutError')).toHaveLength(2);
    expect(seen.statuses('o-6')).toEqual(['Pending']);
  });
});

describe('restarts: a stable owner takes back its leases at start', () => {
  /** A process that dies holding records: its store calls and reads hang from the kill on. */
  function killable(memory: MemoryStatusStore, client: StatusReader) {
    let dead = false;
    const cut = <T>(work: () => Promise<T>): Promise<T> => (dead ? new Promise<never>(() => {}) : work());
    const store = new Proxy(memory, {
      get: (target, key) => {
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function'
          ? (...args: unknown[]) => cut(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args))
          : value;
      },
    }) as StatusStore;
    const reads: StatusReader = {
      getOrderByExternalId: (...args) => cut(() => client.getOrderByExternalId(...args)),
      getWithdrawalByExternalId: (...args) => cut(() => client.getWithdrawalByExternalId(...args)),
    };
    return { store, client: reads, kill: () => void (dead = true) };
  }

  it.each([
    ['the same owner: read again at once (reclaim)', 'worker-1', true],
    ['a random owner: read again only once the lease ran out', undefined, false],
  ])('%s', async (_, owner, atOnce) => {
    const { records, client } = orders();
    const memory = new MemoryStatusStore();
    for (let i = 0; i < 5; i += 1) records.set(`o-${i}`, 'Pending');
    const first = killable(memory, client);
    const seen = recorder();
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    // the first life: onChange never finishes before the kill (the records stay leased to it)
    const old = createStatusTracker({
      client: first.client,
      store: first.store,
      owner: 'worker-1',
      onChange: () => blocked,
      logger: false,
    });
    old.start();
    for (let i = 0; i < 5; i += 1) await old.watchOrder(`o-${i}`);
    await advance(1_000);
    expect((await memory.claimDue({ limit: 10, leaseMs: 1_000, owner: 'probe' })).length).toBe(0);
    first.kill();
    release();
    // the restart: a new process, the same store
    track({ client, store: memory, ...(owner === undefined ? {} : { owner }), onChange: seen.onChange, logger: false });
    await advance(2_000);
    expect(seen.changes.length).toBe(atOnce ? 5 : 0);
    await advance(15_000); // the default leaseMs
    expect(seen.changes.length).toBe(5);
  });
});
