import { createWebhookHandler, MemoryEventStore, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferred, delivery, makeClient, memoryLogger, mockCheckout, recordingStore, SECRET, until } from '../helpers.js';

// A claim's lease is short and renewed while its delivery is in hand; a 409 says when to retry
// (Retry-After); a handler restarted under the same owner takes back its own claims at once.

mockCheckout();

afterEach(() => {
  vi.useRealTimers();
});

// the renewals run on setInterval; the memory store's clock is performance.now()
const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });

const event = { eventId: 'evt-claim', type: 'pix.deposit.created' };

/** A handler whose onEvent waits for `gate` (a long onEvent), counting its calls. */
function worker(options: Partial<WebhookHandlerOptions> & { store: WebhookHandlerOptions['store'] }) {
  const gate = deferred();
  const calls: string[] = [];
  const { entries, logger } = memoryLogger();
  const handler = createWebhookHandler({
    secret: SECRET,
    client: makeClient(),
    logger,
    onEvent: async ({ event: { eventId } }) => {
      calls.push(eventId);
      await gate.promise;
    },
    ...options,
  });
  return { handler, gate, calls, entries };
}

describe('claim leases renewed while in hand', () => {
  it('keeps the claim of a long onEvent far past leaseMs; redeliveries get 409 with the seconds left as Retry-After', async () => {
    fakeClock();
    const store = new MemoryEventStore();
    const first = worker({ store, maxHandlingMs: 120_000 });
    const other = worker({ store });
    const answer = first.handler.handle(await delivery(event));
    await until(() => first.calls.length === 1);
    await vi.advanceTimersByTimeAsync(8_000);
    expect((await answer).status).toBe(503); // responseTimeoutMs; onEvent goes on

    // four default leases (15 s) later the claim still holds: renewed every 5 s
    for (let second = 8; second < 60; second += 13) {
      await vi.advanceTimersByTimeAsync(13_000);
      const redelivery = await other.handler.handle(await delivery(event));
      expect(redelivery.status).toBe(409);
      const retryAfter = Number(redelivery.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(10); // renewed within the last 5 s
      expect(retryAfter).toBeLessThanOrEqual(15);
    }
    expect(other.calls).toEqual([]);

    first.gate.resolve();
    await until(() => first.entries.some((entry) => entry.outcome === 'handled'));
    expect((await other.handler.handle(await delivery(event))).status).toBe(200);
    expect(other.entries.at(-1)).toMatchObject({ outcome: 'duplicate' });
    expect(first.calls).toEqual(['evt-claim']);
    expect(vi.getTimerCount()).toBe(0); // the renewal stopped with the delivery
  });

  it('frees a claim within one lease once it is no longer renewed (the worker is gone), and a redelivery runs it', async () => {
    fakeClock();
    const store = new MemoryEventStore();
    // the first worker's renewals never reach the store: as a killed worker's
    const gone = worker({
      store: { claim: store.claim.bind(store), complete: store.complete.bind(store), release: store.release.bind(store) },
      leaseMs: 15_000,
    });
    const other = worker({ store });
    void gone.handler.handle(await delivery(event));
    await until(() => gone.calls.length === 1);
    await vi.advanceTimersByTimeAsync(5_000);
    const early = await other.handler.handle(await delivery(event));
    expect(early.status).toBe(409);
    expect(early.headers.get('retry-after')).toBe('10');
    await vi.advanceTimersByTimeAsync(10_000);
    other.gate.resolve();
    expect((await other.handler.handle(await delivery(event))).status).toBe(200);
    expect(other.calls).toEqual(['evt-claim']);
  });

  it('falls back for a store without renew or leaseLeftMs: a 60 s lease, and the whole lease as Retry-After', async () => {
    fakeClock();
    const { store } = recordingStore();
    const first = worker({ store });
    const other = worker({ store });
    void first.handler.handle(await delivery(event));
    await until(() => first.calls.length === 1);
    await vi.advanceTimersByTimeAsync(59_000);
    const redelivery = await other.handler.handle(await delivery(event));
    expect(redelivery.status).toBe(409);
    expect(redelivery.headers.get('retry-after')).toBe('60');
    await vi.advanceTimersByTimeAsync(1_000); // the unrenewed 60 s lease passed
    other.gate.resolve();
    expect((await other.handler.handle(await delivery(event))).status).toBe(200);
  });

  it('keeps the default lease at least responseTimeoutMs', async () => {
    fakeClock();
    const store = new MemoryEventStore();
    const first = worker({ store, responseTimeoutMs: 20_000 });
    void first.handler.handle(await delivery(event));
    await until(() => first.calls.length === 1);
    expect(await store.leaseLeftMs('evt-claim')).toBe(20_000);
  });
});

describe('owner', () => {
  it('a handler restarted under the same owner takes back its own claim at once; another owner waits', async () => {
    fakeClock();
    const store = new MemoryEventStore();
    const before = worker({ store, owner: 'worker-1' }); // dies with the event in hand
    const other = worker({ store, owner: 'worker-2' });
    const restarted = worker({ store, owner: 'worker-1' });
    void before.handler.handle(await delivery(event));
    await until(() => before.calls.length === 1);
    await vi.advanceTimersByTimeAsync(1_000);

    const elsewhere = await other.handler.handle(await delivery(event));
    expect(elsewhere.status).toBe(409);
    expect(Number(elsewhere.headers.get('retry-after'))).toBeGreaterThan(10);
    // the same handler, still working on it, never takes its own claim back
    expect((await before.handler.handle(await delivery(event))).status).toBe(409);
    expect(before.calls).toEqual(['evt-claim']);

    restarted.gate.resolve();
    expect((await restarted.handler.handle(await delivery(event))).status).toBe(200);
    expect(restarted.calls).toEqual(['evt-claim']);
    expect((await other.handler.handle(await delivery(event))).status).toBe(200);
    expect(other.entries.at(-1)).toMatchObject({ outcome: 'duplicate' });
  });

  it('refuses an owner that is not a non-empty string', () => {
    for (const owner of ['', 42, null]) {
      expect(() => createWebhookHandler({ secret: SECRET, client: makeClient(), onEvent: () => undefined, owner: owner as never })).toThrow(
        TypeError,
      );
    }
  });
});
