import type { StatusReader } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, type WebhookContext, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { delay, http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  API,
  deferred,
  deliverWithTimers,
  delivery,
  makeClient,
  memoryLogger,
  mockCheckout,
  recordingStore,
  SECRET,
  until,
} from '../helpers.js';

// The confirm reads run under a deadline at claimedAt + leaseMs - min(10% of leaseMs, 5 s): past the
// lease a redelivery can claim the event, so a read still running then would let onEvent run twice.

const { server, state } = mockCheckout();

afterEach(() => {
  vi.useRealTimers();
});

const ORDER_PATH = `${API}/orders/by-external-id/:id`;
const settled = { eventId: 'evt-lease', type: 'otc.trade.settled', tradeId: 't-1' };
const settledOrder = { externalId: 'o-1', settlement: { status: 'Settled', tradeId: 't-1' } };

/** leaseMs 10 s: the reads' deadline is 9 s after the claim. */
function setup(overrides: Partial<WebhookHandlerOptions> = {}) {
  const { calls, store } = recordingStore();
  const { entries, logger } = memoryLogger();
  const onEvent = vi.fn();
  const handler = createWebhookHandler({
    secret: SECRET,
    client: makeClient(),
    store,
    logger,
    onEvent,
    leaseMs: 10_000,
    responseTimeoutMs: 1_000,
    confirm: { attempts: 1, delayMs: 0 },
    resolveOrderExternalId: () => 'o-1',
    ...overrides,
  });
  return { handler, calls, entries, onEvent };
}

const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });

describe('confirm reads end before the claim lease', () => {
  it('cuts off a read still running at the deadline and releases the claim, so onEvent runs once, not twice', async () => {
    fakeClock();
    let reads = 0;
    // the first read answers only after 15 s (a slow service, or the client's retries); later reads at once
    server.use(
      http.get(ORDER_PATH, async () => {
        reads += 1;
        if (reads === 1) await delay(15_000);
        return HttpResponse.json(settledOrder);
      }),
    );
    const { handler, calls, entries, onEvent } = setup();
    const first = handler.handle(await delivery(settled));
    await until(() => reads === 1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await first).status).toBe(503);

    await vi.advanceTimersByTimeAsync(7_999);
    expect(calls).toEqual(['claim:evt-lease']);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => calls.includes('release:evt-lease'));
    await until(() => entries.length === 2);
    expect(entries[1]).toMatchObject({ outcome: 'failed', late: true, error: { name: 'LeaseDeadlineError' } });
    expect(onEvent).not.toHaveBeenCalled();

    // the redelivery (here after the lease would have passed) runs it; the first read's late answer changes nothing
    await vi.advanceTimersByTimeAsync(1_500);
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(onEvent).toHaveBeenCalledOnce();
    expect(onEvent.mock.calls[0]?.[0]).toMatchObject({ confirmed: true });
    expect(calls).toEqual(['claim:evt-lease', 'release:evt-lease', 'claim:evt-lease', 'complete:evt-lease']);
  });

  it('passes each read an AbortSignal that aborts at the deadline, and fails even when the client ignores it', async () => {
    fakeClock();
    const signals: (AbortSignal | undefined)[] = [];
    const client: StatusReader = {
      getOrderByExternalId: (_id, options) => {
        signals.push(options?.signal);
        return new Promise<never>(() => undefined); // never answers, never looks at the signal
      },
      getWithdrawalByExternalId: () => Promise.reject(new Error('not used')),
    };
    const { handler, calls, entries } = setup({ client, leaseMs: 60_000 });
    void handler.handle(await delivery(settled));
    await until(() => signals.length === 1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
    // 60 s lease: the margin is 5 s (less than 10%), so the deadline is at 55 s
    await vi.advanceTimersByTimeAsync(54_999);
    expect(signals[0]?.aborted).toBe(false);
    expect(calls).toEqual(['claim:evt-lease']);
    await vi.advanceTimersByTimeAsync(1);
    expect(signals[0]?.aborted).toBe(true);
    await until(() => calls.includes('release:evt-lease'));
    await until(() => entries.length === 2);
    expect(entries[1]).toMatchObject({ outcome: 'failed', late: true, error: { name: 'LeaseDeadlineError' } });
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each([
    ['resolveOrderExternalId', settled],
    ['resolveWithdrawalExternalId', { eventId: 'evt-lease', type: 'pix.withdrawal.settled' }],
  ] as const)(
    'cuts off a %s that never answers at the same deadline (it is part of the confirm step): claim released, onEvent not run',
    async (resolver, event) => {
      fakeClock();
      let asked = 0;
      const hung = () => {
        asked += 1;
        return new Promise<string>(() => undefined); // e.g. pool.query on a blackholed network
      };
      const { handler, calls, entries, onEvent } = setup({ leaseMs: 60_000, [resolver]: hung });
      void handler.handle(await delivery(event));
      await until(() => asked === 1);
      await vi.advanceTimersByTimeAsync(54_999);
      expect(calls).toEqual(['claim:evt-lease']);
      await vi.advanceTimersByTimeAsync(1);
      await until(() => calls.includes('release:evt-lease'));
      await until(() => entries.length === 2);
      expect(entries[1]).toMatchObject({ outcome: 'failed', late: true, error: { name: 'LeaseDeadlineError' } });
      expect(onEvent).not.toHaveBeenCalled();
      expect(await handler.drain({ timeoutMs: 1 })).toEqual({ drained: true, inHand: [] });
    },
  );

  it('counts the deadline from the claim: a claim that took most of the lease leaves no time to read', async () => {
    fakeClock();
    state.orders.set('o-1', settledOrder);
    const inner = new MemoryEventStore();
    const { calls, store } = recordingStore({
      claim: async (eventId, leaseMs) => {
        await new Promise((resolve) => setTimeout(resolve, 9_500));
        return inner.claim(eventId, leaseMs);
      },
      complete: (eventId, lease) => inner.complete(eventId, lease),
      release: (eventId, lease) => inner.release(eventId, lease),
    });
    const { handler, onEvent, entries } = setup({ store });
    expect((await deliverWithTimers(handler, await delivery(settled))).status).toBe(503);
    // under load the 503 can come before verification reached the claim: its timer must exist first
    await until(() => calls.includes('claim:evt-lease'));
    await vi.advanceTimersByTimeAsync(10_000);
    await until(() => calls.includes('release:evt-lease'));
    expect(calls).toEqual(['claim:evt-lease', 'release:evt-lease']);
    await until(() => entries.length === 2);
    expect(entries[1]).toMatchObject({ outcome: 'failed', late: true, error: { name: 'LeaseDeadlineError' } });
    expect(onEvent).not.toHaveBeenCalled();
    expect(state.reads.size).toBe(0);
  });

  it('stops re-reading at the deadline and gives onEvent confirmed: false while the lease still holds', async () => {
    fakeClock();
    state.orders.set('o-1', { externalId: 'o-1', settlement: { status: 'Pending', tradeId: 't-1' } });
    const { handler, calls, onEvent } = setup({ responseTimeoutMs: 10_000, confirm: { attempts: 100, delayMs: 1_000 } });
    const started = Date.now();
    const reads = () => [...state.reads.values()][0] ?? 0;
    const pending = handler.handle(await delivery(settled));
    // the clock moves only here: reads at 0, 1 s, … 8 s; a wait from 8 s would end at the 9 s deadline
    for (let read = 1; read <= 8; read += 1) {
      await until(() => reads() === read);
      await vi.advanceTimersByTimeAsync(1_000);
    }
    expect((await pending).status).toBe(200);
    expect([...state.reads.values()]).toEqual([9]);
    expect(onEvent).toHaveBeenCalledOnce();
    expect(onEvent.mock.calls[0]?.[0]).toMatchObject({ confirmed: false, order: { settlement: { status: 'Pending' } } });
    expect(Date.now() - started).toBeLessThan(9_000);
    expect(calls).toEqual(['claim:evt-lease', 'complete:evt-lease']);
  });

  it('never cuts off onEvent itself, and leaves no timer behind', async () => {
    fakeClock();
    state.orders.set('o-1', settledOrder);
    const onEvent = vi.fn<(context: WebhookContext) => Promise<void>>(() => new Promise<void>((resolve) => setTimeout(resolve, 9_800)));
    // runs past the reads' 9 s deadline: answered 503 at 1 s, then completes late
    const { handler, calls, entries } = setup({ onEvent });
    const pending = handler.handle(await delivery(settled));
    await until(() => onEvent.mock.calls.length === 1); // the read and onEvent start at 0 s
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await pending).status).toBe(503);
    await vi.advanceTimersByTimeAsync(9_000);
    await until(() => calls.includes('complete:evt-lease'));
    expect(calls).toEqual(['claim:evt-lease', 'complete:evt-lease']);
    expect(onEvent.mock.calls[0]?.[0]).toMatchObject({ confirmed: true });
    await until(() => entries.length === 2);
    expect(entries[1]).toMatchObject({ outcome: 'handled', late: true });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('leases with owners, in one process', () => {
  it("keeps a worker whose lease ran out from releasing or completing the next worker's claim", async () => {
    fakeClock();
    const calls: number[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const { entries, logger } = memoryLogger();
    const handler = createWebhookHandler({
      secret: SECRET,
      client: makeClient(),
      // a store without renew: the claim lapses at leaseMs while onEvent still runs
      store: recordingStore().store,
      logger,
      leaseMs: 2_000,
      responseTimeoutMs: 1_000,
      onEvent: async () => {
        const run = calls.length;
        calls.push(run);
        await gates[run]?.promise;
      },
    });
    const event = { eventId: 'evt-owner', type: 'otc.trade.cancelled' };
    const first = handler.handle(await delivery(event));
    await until(() => calls.length === 1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await first).status).toBe(503);
    await vi.advanceTimersByTimeAsync(1_000); // the first worker's lease ran out while it works
    const second = handler.handle(await delivery(event));
    await until(() => calls.length === 2); // a redelivery claimed it, in the same process
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await second).status).toBe(503);

    gates[0]?.reject(new Error('first worker fails late')); // it releases with its own lease: a no-op
    await until(() => entries.some((entry) => entry.outcome === 'failed'));
    expect((await handler.handle(await delivery(event))).status).toBe(409); // still the second worker's
    expect(calls).toEqual([0, 1]);

    gates[1]?.resolve();
    await until(() => entries.some((entry) => entry.outcome === 'handled'));
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect(entries.at(-1)).toMatchObject({ outcome: 'duplicate' });
    expect(calls).toEqual([0, 1]);
  });
});
