import type { StatusReader } from 'checkout-partner-sdk';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { afterEach, expect, it, vi } from 'vitest';
import { settled } from '../helpers/fake-time.js';

afterEach(() => vi.useRealTimers());

it('reads that end together free their slots together: the next claim takes them all at once', async () => {
  // the loop's timers and the store's clock; setImmediate stays real (what frees slots together waits on it)
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
  const store = new MemoryStatusStore();
  for (let i = 0; i < 20; i += 1) await store.watch('order', `o-${i}`);
  /** The limit of every claim that took records. */
  const limits: number[] = [];
  const claimDue = store.claimDue.bind(store);
  store.claimDue = async (request) => {
    const claimed = await claimDue(request);
    if (claimed.length > 0) limits.push(request.limit);
    return claimed;
  };
  // every read answers at once with the same status: the turns of one claim end in the same turn of the event loop
  const client: StatusReader = {
    getOrderByExternalId: async (externalId) => ({ externalId, currency: 'USDT', settlement: { status: 'Pending' } }),
    getWithdrawalByExternalId: () => Promise.reject(new Error('unused')),
  };
  const tracker = createStatusTracker({
    client,
    store,
    maxConcurrentReads: 4,
    claimIntervalMs: 5,
    schedule: { fastIntervalMs: 1, jitter: 0 },
    logger: false,
    onChange: async () => undefined,
  });
  tracker.start();
  for (let wait = 0; wait < 300 && limits.length < 20; wait += 1) await vi.advanceTimersByTimeAsync(10);
  await settled(tracker.drain({ timeoutMs: 1_000 }), 'the tracker did not drain');
  expect(limits.length).toBeGreaterThanOrEqual(20);
  // 20 records due and 4 slots: a claim for each slot a turn freed would ask for 1, 2 or 3
  expect(new Set(limits)).toEqual(new Set([4]));
});
