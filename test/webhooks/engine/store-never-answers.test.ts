import { MemoryEventStore, type EventStore } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { delivery, mockCheckout, setupHandler, until } from '../helpers.js';

// A store.complete or store.release that never answers is given up after the lease's margin (10%
// of leaseMs, at most 5 s): the delivery is answered, the work in hand ends, drain() is not held.
const { state } = mockCheckout();

afterEach(() => {
  vi.useRealTimers();
});

const settled = { eventId: 'evt-hang', type: 'otc.trade.settled', tradeId: 't-1' };

/** A MemoryEventStore whose complete (or release) never settles; counts the calls. */
function hangingStore(hang: 'complete' | 'release') {
  const inner = new MemoryEventStore();
  const calls = { complete: 0, release: 0 };
  const never = new Promise<void>(() => undefined);
  const store: EventStore = {
    claim: (eventId, leaseMs) => inner.claim(eventId, leaseMs),
    complete: (eventId, lease) => {
      calls.complete += 1;
      return hang === 'complete' ? never : inner.complete(eventId, lease);
    },
    release: (eventId, lease) => {
      calls.release += 1;
      return hang === 'release' ? never : inner.release(eventId, lease);
    },
  };
  return { store, calls };
}

describe('a store that never answers', () => {
  it('complete: the delivery is answered 200 after the margin, logged; the retries end at the lease and drain() is not held', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    state.orders.set('order-for-t-1', { externalId: 'order-for-t-1', settlement: { status: 'Settled', tradeId: 't-1' } });
    const { store, calls } = hangingStore('complete');
    // leaseMs 20 s: the margin is 2 s
    const { handler, seen, entries } = setupHandler({ store, leaseMs: 20_000, responseTimeoutMs: 8_000 });
    let response: Response | undefined;
    void handler.handle(await delivery(settled)).then((r) => (response = r));
    await until(() => calls.complete === 1);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(response).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await until(() => response !== undefined);
    // onEvent did its work: 200, not the 503 of a response deadline that a hung store would have caused
    expect(response?.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(entries).toContainEqual(
      expect.objectContaining({ outcome: 'handled', eventId: 'evt-hang', error: expect.objectContaining({ name: 'StoreTimeoutError' }) }),
    );
    // the background retries of complete, each given up after 2 s, stop at the lease's end
    let report: unknown;
    void handler.drain({ timeoutMs: 60_000 }).then((r) => (report = r));
    await vi.advanceTimersByTimeAsync(25_000);
    await until(() => report !== undefined);
    expect(report).toEqual({ drained: true, inHand: [] });
    expect(calls.complete).toBeGreaterThan(1);
    const late = entries.filter((entry) => entry.late === true);
    expect(late).toContainEqual(
      expect.objectContaining({ eventId: 'evt-hang', error: expect.objectContaining({ name: 'CompleteFailedError' }) }),
    );
  });

  it('release: the failed delivery is answered 500 after the margin, the error says the claim lapses at its lease', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    state.orders.set('order-for-t-1', { externalId: 'order-for-t-1', settlement: { status: 'Settled', tradeId: 't-1' } });
    const { store, calls } = hangingStore('release');
    const { handler, entries } = setupHandler({
      store,
      leaseMs: 20_000,
      responseTimeoutMs: 8_000,
      onEvent: () => {
        throw new Error('partner bug');
      },
    });
    let response: Response | undefined;
    void handler.handle(await delivery(settled)).then((r) => (response = r));
    await until(() => calls.release === 1);
    await vi.advanceTimersByTimeAsync(2_000);
    await until(() => response !== undefined);
    expect(response?.status).toBe(500);
    const entry = entries.find((e) => e.outcome === 'failed');
    expect(JSON.stringify(entry)).toMatch(/store\.release for event .*evt-hang.* did not answer within 2000 ms/);
    await expect(handler.drain({ timeoutMs: 1 })).resolves.toEqual({ drained: true, inHand: [] });
  });
});
