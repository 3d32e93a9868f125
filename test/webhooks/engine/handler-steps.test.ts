import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryEventStore } from 'checkout-partner-sdk/webhooks';
import { delivery, mockCheckout, SECRET, setupHandler as setup, until } from '../helpers.js';

const { state } = mockCheckout();

const settled = { eventId: 'evt-1', type: 'otc.trade.settled', tradeId: 't-1', amount: '10.00' };

afterEach(() => {
  vi.useRealTimers();
});

describe('step 2: claim', () => {
  it('answers 200 to a redelivery of a handled event without calling onEvent again', async () => {
    state.orders.set('order-for-t-1', { externalId: 'order-for-t-1', settlement: { status: 'Settled', tradeId: 't-1' } });
    const { handler, seen, entries } = setup();
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    const again = await handler.handle(await delivery(settled));
    expect(again.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(entries.map((e) => e.outcome)).toEqual(['handled', 'duplicate']);
  });

  it('answers 409 while another delivery of the event is being handled', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { handler, seen } = setup({
      onEvent: async (context) => {
        seen.push(context);
        await held;
      },
    });
    const first = handler.handle(await delivery({ eventId: 'evt-9', type: 'custom' }));
    await until(() => seen.length === 1);
    const second = await handler.handle(await delivery({ eventId: 'evt-9', type: 'custom' }));
    expect(second.status).toBe(409);
    release();
    expect((await first).status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('answers 503 when the store fails, and does not handle the event', async () => {
    const { handler, seen, entries } = setup({
      store: {
        claim: async () => {
          throw new Error('ECONNREFUSED 127.0.0.1:6379');
        },
        complete: async () => undefined,
        release: async () => undefined,
      },
    });
    const response = await handler.handle(await delivery(settled));
    expect(response.status).toBe(503);
    expect(seen).toEqual([]);
    expect(entries).toMatchObject([{ outcome: 'store-unavailable', status: 503, eventId: 'evt-1' }]);
  });

  it.each([
    ['a claim with a null lease', { status: 'claimed', lease: null }, /with lease null/],
    ['another word', 'ok', /must resolve to "claimed", \{ status: "claimed", lease \}, "in-flight" or "done", got string/],
    ['another status', { status: 'taken', lease: 'l-1' }, /got object/],
    ['nothing', undefined, /got undefined/],
  ])('answers 503 with a TypeError saying what the store answered: %s', async (_, answer, message) => {
    const { handler, seen, entries } = setup({
      store: {
        claim: async () => answer as never,
        complete: async () => undefined,
        release: async () => undefined,
      },
    });
    expect((await handler.handle(await delivery(settled))).status).toBe(503);
    expect(seen).toEqual([]);
    expect(entries).toMatchObject([
      { outcome: 'store-unavailable', error: { name: 'TypeError', message: expect.stringMatching(message) } },
    ]);
  });
});

describe('step 2: a store without leases (API.md: claim → "claimed", complete(eventId), release(eventId))', () => {
  /** A partner's store that hands out no lease: a plain "claimed", settled by eventId alone. */
  function leaselessStore(answer: 'claimed' | { status: 'claimed' } = 'claimed') {
    const state = new Map<string, 'in-flight' | 'done'>();
    const calls: unknown[][] = [];
    const store = {
      claim: async (eventId: string) => {
        calls.push(['claim', eventId]);
        const held = state.get(eventId);
        if (held !== undefined) return held;
        state.set(eventId, 'in-flight');
        return answer;
      },
      complete: async (...args: [eventId: string, lease?: unknown]) => {
        calls.push(['complete', ...args]);
        state.set(args[0], 'done');
      },
      release: async (...args: [eventId: string, lease?: unknown]) => {
        calls.push(['release', ...args]);
        if (state.get(args[0]) === 'in-flight') state.delete(args[0]);
      },
    };
    return { store, calls };
  }

  it.each([
    ['a plain "claimed"', 'claimed' as const],
    ['{ status: "claimed" } without a lease', { status: 'claimed' as const }],
  ])('delivers once and answers a redelivery as a duplicate: %s', async (_, answer) => {
    const { store, calls } = leaselessStore(answer);
    let runs = 0;
    const { handler, entries } = setup({ store, onEvent: () => void (runs += 1) });
    const event = { eventId: 'e-plain', type: 'custom' };
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect(runs).toBe(1);
    expect(entries.map((entry) => entry.outcome)).toEqual(['handled', 'duplicate']);
    // complete gets no lease: undefined where a lease would go
    expect(calls).toEqual([
      ['claim', 'e-plain'],
      ['complete', 'e-plain', undefined],
      ['claim', 'e-plain'],
    ]);
  });

  it('releases without a lease when onEvent throws, so the redelivery runs it again', async () => {
    const { store, calls } = leaselessStore();
    let runs = 0;
    const { handler, entries } = setup({
      store,
      onEvent: () => {
        runs += 1;
        if (runs === 1) throw new Error('database down');
      },
    });
    const event = { eventId: 'e-again', type: 'custom' };
    expect((await handler.handle(await delivery(event))).status).toBe(500);
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect(runs).toBe(2);
    expect(entries.map((entry) => entry.outcome)).toEqual(['failed', 'handled', 'duplicate']);
    expect(calls.filter(([step]) => step !== 'claim')).toEqual([
      ['release', 'e-again', undefined],
      ['complete', 'e-again', undefined],
    ]);
  });
});

describe('step 4: onEvent', () => {
  it('completes the claim and answers 200 when onEvent resolves', async () => {
    const { handler, calls } = setup({ onEvent: async () => undefined });
    const response = await handler.handle(await delivery({ eventId: 'e-ok', type: 'custom' }));
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/OK/);
    expect(calls).toEqual(['claim:e-ok', 'complete:e-ok']);
  });

  it('releases the claim and answers 500 when onEvent throws; a redelivery runs it again', async () => {
    let runs = 0;
    const { handler, calls } = setup({
      onEvent: () => {
        runs += 1;
        if (runs === 1) throw new Error('database down');
      },
    });
    const event = { eventId: 'e-retry', type: 'custom' };
    expect((await handler.handle(await delivery(event))).status).toBe(500);
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect(runs).toBe(2);
    expect(calls).toEqual(['claim:e-retry', 'release:e-retry', 'claim:e-retry', 'complete:e-retry', 'claim:e-retry']);
  });

  it('answers 200 when onEvent resolved but the store failed to complete (the work is done)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
    const { handler, entries } = setup({
      leaseMs: 150,
      responseTimeoutMs: 100,
      store: {
        claim: async () => ({ status: 'claimed', lease: 1 }),
        complete: async () => {
          throw new Error('store down');
        },
        release: async () => undefined,
      },
    });
    expect((await handler.handle(await delivery({ eventId: 'e-c', type: 'custom' }))).status).toBe(200);
    expect(entries[0]).toMatchObject({ outcome: 'handled', error: { message: 'store down' } });
    // completing is retried until the lease passes; drain() waits for that, and the give-up is logged late
    const draining = handler.drain();
    await vi.advanceTimersByTimeAsync(150);
    await draining;
    expect(entries.at(-1)).toMatchObject({ outcome: 'handled', late: true, eventId: 'e-c', error: { name: 'CompleteFailedError' } });
  });

  it('keeps retrying a failed complete while the lease holds, so a redelivery does not run the event again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
    const inner = new MemoryEventStore();
    let completeFailures = 1;
    let runs = 0;
    const { handler } = setup({
      leaseMs: 200,
      responseTimeoutMs: 100,
      onEvent: () => void (runs += 1),
      store: {
        claim: (id, lease) => inner.claim(id, lease),
        complete: async (id, lease) => {
          if (completeFailures-- > 0) throw new Error('store blip');
          return inner.complete(id, lease);
        },
        release: (id, lease) => inner.release(id, lease),
      },
    });
    const event = { eventId: 'e-blip', type: 'custom' };
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    // while the retry is pending the claim still holds: a redelivery is told to come back later
    expect((await handler.handle(await delivery(event))).status).toBe(409);
    const draining = handler.drain(); // waits for the background retry
    await vi.advanceTimersByTimeAsync(100);
    await draining;
    await vi.advanceTimersByTimeAsync(250); // past the lease
    expect(await inner.claim('e-blip', 1_000)).toBe('done');
    expect(runs).toBe(1);
  });
});

describe('responses and logs', () => {
  it('never echo the secret or the signature, and log one entry per delivery without them', async () => {
    const { handler, entries } = setup({ onEvent: () => undefined });
    const requests = [
      await delivery({ eventId: 'e-1', type: 'custom', secretish: 'payload-marker' }),
      await delivery({ eventId: 'e-2', type: 'custom' }, { secret: 'wrong' }),
      await delivery('garbage payload-marker'),
    ];
    const signatures = requests.map((r) => r.headers.get('x-provider-signature')!);
    const texts: string[] = [];
    for (const request of requests) texts.push(await (await handler.handle(request)).text());
    const everything = JSON.stringify(entries) + texts.join('\n');
    expect(everything).not.toContain(SECRET);
    for (const signature of signatures) {
      expect(everything).not.toContain(signature);
      expect(everything).not.toContain(signature.slice(7));
    }
    expect(everything).not.toContain('payload-marker');
    expect(entries).toHaveLength(3);
    expect(entries.map((e) => [e.outcome, e.status])).toEqual([
      ['handled', 200],
      ['bad-signature', 401],
      ['invalid', 400],
    ]);
    expect(entries[0]).toMatchObject({ eventId: 'e-1', type: 'custom', confirmed: false });
    for (const entry of entries) expect(entry.ms).toBeGreaterThanOrEqual(0);
  });

  it('routes entries to info / warn / error on a logger object, and survives a logger that throws', async () => {
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const { handler } = setup({ logger, onEvent: () => undefined });
    await handler.handle(await delivery({ eventId: 'e-1', type: 'custom' }));
    await handler.handle(await delivery({ eventId: 'e-2', type: 'custom' }, { signature: null }));
    expect(logger.info).toHaveBeenCalledWith(expect.objectContaining({ outcome: 'handled' }));
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ outcome: 'bad-signature' }));
    const throwing = setup({
      logger: () => {
        throw new Error('logger broke');
      },
    });
    expect((await throwing.handler.handle(await delivery({ eventId: 'e-3', type: 'custom' }))).status).toBe(200);
  });
});
