import { CheckoutClient, type LogEntry } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { realTurn, settled } from '../helpers/fake-time.js';
import { createStatusTracker, type StatusChange, type StatusTracker, type StatusTrackerOptions } from 'checkout-partner-sdk/tracker';

type TrackerLogEntry = Extract<LogEntry, { event: `tracker.${string}` }>;

/** Fake timers (performance.now() included: the tracker's deadlines and the memory store's clock) that leave setImmediate real (the helper below yields with it). */
export const FAKE_TIMERS: Parameters<typeof vi.useFakeTimers>[0] = {
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
};

export const ORIGIN = 'https://checkout.test';

/**
 * The fake service and a real client reading it through `fake.fetch`; `reads` counts status GETs by
 * externalId. `advance` and `until` move the fake clock (FAKE_TIMERS) and let the client calls in
 * flight settle at each step.
 */
export function fakeService() {
  const fake = createFakeCheckout({ partners: [{ partnerId: 'p-1', partnerSecret: 's-1', enabled: true, apiEnabled: true }] });
  const reads = new Map<string, number>();
  const client = new CheckoutClient({
    baseUrl: ORIGIN,
    partnerId: 'p-1',
    partnerSecret: 's-1',
    maxRetries: 0,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const match = /by-external-id\/([^/?]+)/.exec(new URL(request.url).pathname);
      if (match) reads.set(decodeURIComponent(match[1]!), (reads.get(decodeURIComponent(match[1]!)) ?? 0) + 1);
      return fake.fetch(request);
    },
  });
  // A call settles on real work, not on timers: the fake's JWT checks run on Web Crypto (the thread
  // pool), and the client loads parts of itself at first use (dynamic imports). So the calls in
  // flight are tracked and awaited themselves (however long a loaded machine takes), never a count
  // of event-loop turns during which the fake clock would run ahead of them.
  const inFlight = new Set<Promise<unknown>>();
  // each kind's own read calls getRecord: tracked here, a read of any kind is
  for (const name of ['getRecord', 'getMe', 'getAccessToken'] as const) {
    const call = client[name].bind(client) as (...args: unknown[]) => Promise<unknown>;
    Object.defineProperty(client, name, {
      value: (...args: unknown[]) => {
        const pending = call(...args);
        inFlight.add(pending);
        void pending.then(
          () => inFlight.delete(pending),
          () => inFlight.delete(pending),
        );
        return pending;
      },
    });
  }
  /** Awaits the calls in flight, then those they started, until none is left (bounded in rounds). */
  const settle = async (): Promise<void> => {
    await realTurn();
    for (let round = 0; round < 1_000 && inFlight.size > 0; round += 1) {
      await settled(Promise.allSettled(inFlight), 'a client call in flight waits on a fake timer: advance() cannot settle it by waiting');
      await realTurn();
    }
  };
  /** Moves the fake clock by `ms` in `stepMs` steps, letting the calls started at each step settle first. */
  const advance = async (ms: number, stepMs = 250): Promise<void> => {
    for (let elapsed = 0; elapsed < ms; elapsed += stepMs) {
      await vi.advanceTimersByTimeAsync(Math.min(stepMs, ms - elapsed));
      await settle();
      await vi.advanceTimersByTimeAsync(0);
    }
  };
  /**
   * Moves the fake clock in `stepMs` steps (as {@link advance}) until `check` holds; `false` once
   * `maxMs` of fake time has passed. Fake time only: the machine's speed changes nothing.
   */
  const until = async (check: () => Promise<boolean> | boolean, maxMs: number, stepMs = 50): Promise<boolean> => {
    for (let elapsed = 0; elapsed < maxMs; elapsed += stepMs) {
      if (await check()) return true;
      await advance(stepMs, stepMs);
    }
    return check();
  };
  return { fake, client, reads, advance, until };
}

/**
 * One tracker read that finds a change and one that finds nothing (404), on real timers. The SDK
 * loads parts of itself at first use (the OpenTelemetry API lookup and its glue, the client's ky and
 * error modules: dynamic imports, real I/O) outside any client call that `advance` could await, so a
 * fake clock would run ahead of the first read of a test file. Waits for what happened, not for time.
 */
async function warmUp(): Promise<void> {
  const fake = createFakeCheckout({ partners: [{ partnerId: 'p-1', partnerSecret: 's-1', enabled: true, apiEnabled: true }] });
  fake.setOrder({ externalId: 'warm-up', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
  const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'p-1', partnerSecret: 's-1', maxRetries: 0, fetch: fake.fetch });
  let changed!: () => void;
  let missing!: () => void;
  const both = Promise.all([new Promise<void>((resolve) => (changed = resolve)), new Promise<void>((resolve) => (missing = resolve))]);
  const tracker = createStatusTracker({
    client,
    claimIntervalMs: 10,
    onChange: () => changed(),
    logger: (entry) => {
      if (entry.event === 'tracker.read' && entry.outcome === 'not-found') missing();
    },
  });
  vi.useFakeTimers(FAKE_TIMERS);
  try {
    tracker.start();
    await tracker.watchOrder('warm-up');
    await tracker.watchOrder('warm-up-404');
    await settled(both, 'the warm-up reads did not happen');
    await settled(tracker.drain({ timeoutMs: 1_000 }), 'the warm-up tracker did not drain');
  } finally {
    vi.useRealTimers();
  }
}
// every test file that uses these helpers warms the SDK up first
beforeAll(warmUp);

/**
 * Loads the SDK's telemetry module (a dynamic import, real I/O) before a test moves the fake clock,
 * so that the reads measured are not held up by it. Its read follows the watch, on no timer.
 */
export async function warmUpTelemetry(meterProvider: StatusTrackerOptions['meterProvider']): Promise<void> {
  vi.useFakeTimers(FAKE_TIMERS);
  const { fake, client } = fakeService();
  const seen = recorder();
  fake.setOrder({ externalId: 'warm-up', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
  const warm = createStatusTracker({ client, onChange: seen.onChange, logger: false, claimIntervalMs: 10, meterProvider });
  warm.start();
  await warm.watchOrder('warm-up');
  await settled(seen.handed(1), 'the warm-up read did not happen');
  await settled(warm.drain(), 'the warm-up tracker did not drain');
  vi.useRealTimers();
}

/** Collects what onChange got and what the logger wrote. */
export function recorder() {
  const changes: StatusChange[] = [];
  const log: TrackerLogEntry[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  return {
    changes,
    log,
    onChange: (change: StatusChange) => {
      changes.push(change);
      for (const waiter of waiting.filter((w) => changes.length >= w.count)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    logger: (entry: TrackerLogEntry) => {
      log.push(entry);
    },
    statuses: (externalId: string) => changes.filter((c) => c.externalId === externalId).map((c) => c.status),
    /** Resolves once `count` changes were handed over: for real timers, with no time budget (the test's timeout bounds it). */
    handed: (count: number): Promise<void> =>
      changes.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve })),
  };
}

/**
 * Fake timers for each test of the file, and `track(options)`: a started tracker that is drained
 * after its test.
 */
export function trackerHarness(): (options: Parameters<typeof createStatusTracker>[0]) => StatusTracker {
  let trackers: StatusTracker[] = [];
  beforeEach(() => {
    vi.useFakeTimers(FAKE_TIMERS);
  });
  afterEach(async () => {
    for (const tracker of trackers) await tracker.drain({ timeoutMs: 1_000 });
    trackers = [];
    vi.useRealTimers();
  });
  return (options) => {
    const tracker = createStatusTracker(options);
    trackers.push(tracker);
    tracker.start();
    return tracker;
  };
}
