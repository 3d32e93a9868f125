import { HandlingAbandonedError } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, type EventStore, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { installOtel, total, type Otel } from '../../telemetry/otel.js';
import { delivery, makeClient, memoryLogger, mockCheckout, SECRET, until } from '../helpers.js';

// An onEvent that never settles: past maxHandlingMs, once drain() gave up on it, or once its claim
// is found lost, the handler lets go of the event (no renewal, context.signal aborted, logged and
// counted, no timer left), and another worker runs it once the claim lapses, within one lease.

mockCheckout();

let otel: Otel;
beforeAll(async () => {
  // metrics only (no span exporter's timers), through the handlers' meterProvider option
  otel = installOtel({ global: false });
  // on real timers: the first delivery loads the telemetry (a dynamic import, real I/O)
  const warm = createWebhookHandler({
    secret: SECRET,
    client: makeClient(),
    store: new MemoryEventStore(),
    logger: false,
    meterProvider: otel.meterProvider,
    onEvent: () => {},
  });
  expect((await warm.handle(await delivery({ eventId: 'evt-warm', type: 'pix.deposit.created' }))).status).toBe(200);
});
afterAll(() => otel.uninstall());
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const event = { eventId: 'evt-hung', type: 'pix.deposit.created' };

/** A handler whose onEvent never settles (it keeps the signal it gets), and one whose onEvent records the event. */
function workers(store: EventStore, options: Partial<WebhookHandlerOptions> = {}) {
  const signals: AbortSignal[] = [];
  const hungLog = memoryLogger();
  const hung = createWebhookHandler({
    secret: SECRET,
    client: makeClient(),
    store,
    logger: hungLog.logger,
    meterProvider: otel.meterProvider,
    onEvent: ({ signal }) => {
      signals.push(signal);
      return new Promise<void>(() => undefined);
    },
    ...options,
  });
  const handled: string[] = [];
  const other = createWebhookHandler({
    secret: SECRET,
    client: makeClient(),
    store,
    logger: false,
    onEvent: ({ event: { eventId } }) => void handled.push(eventId),
  });
  return { hung, entries: hungLog.entries, signals, other, handled };
}

/** How many onEvent calls were given up for `reason`, as `checkout.handling.abandoned` counts them. */
const abandoned = async (reason: string) =>
  total((await otel.metrics()).get('checkout.handling.abandoned'), {
    'checkout.handling.callback': 'onEvent',
    'checkout.handling.reason': reason,
  });

describe('an onEvent that never settles', () => {
  it('past maxHandlingMs: signal aborted, 500, logged and counted, no timer left; another worker runs it within one lease', async () => {
    const before = await abandoned('max-handling');
    const { hung, entries, signals, other, handled } = workers(new MemoryEventStore(), { maxHandlingMs: 3_000 });
    const answer = hung.handle(await delivery(event));
    await until(() => signals.length === 1);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(signals[0]?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(signals[0]?.reason).toBeInstanceOf(HandlingAbandonedError);
    expect(signals[0]?.reason).toMatchObject({ reason: 'max-handling', ms: 3_000 });
    expect((await answer).status).toBe(500);
    expect(entries.at(-1)).toMatchObject({
      outcome: 'failed',
      eventId: 'evt-hung',
      error: {
        name: 'HandlingAbandonedError',
        message: expect.stringMatching(/^onEvent for event "evt-hung" ran past maxHandlingMs \(after 3000 ms\)/),
      },
    });
    expect(vi.getTimerCount()).toBe(0);
    expect(await abandoned('max-handling')).toBe(before + 1);

    // the claim was renewed at most until the give-up, and lapses within one lease (15 s) of the claim
    const early = await other.handle(await delivery(event));
    expect(early.status).toBe(409);
    expect(await early.text()).toBe('Conflict: claimed; retry after 12 s');
    expect(early.headers.get('retry-after')).toBe('12');
    await vi.advanceTimersByTimeAsync(12_000);
    expect((await other.handle(await delivery(event))).status).toBe(200);
    expect(handled).toEqual(['evt-hung']);
  });

  it('keeps its claim until the default maxHandlingMs, 60 s, renewing it', async () => {
    const { hung, signals, other } = workers(new MemoryEventStore());
    void hung.handle(await delivery(event));
    await until(() => signals.length === 1);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(signals[0]?.aborted).toBe(false);
    expect((await other.handle(await delivery(event))).status).toBe(409);
    await vi.advanceTimersByTimeAsync(1);
    expect(signals[0]?.reason).toMatchObject({ name: 'HandlingAbandonedError', reason: 'max-handling' });
  });

  it('with a transactional store, maxHandlingMs defaults to its leaseMs (the transaction ends then): the store is told', async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const store = Object.assign(new MemoryEventStore(), {
      transact: (_event: unknown, _leaseMs: number, work: (transaction: string) => Promise<void>, options?: { signal?: AbortSignal }) => {
        signals.push(options?.signal);
        return work('tx').then(() => 'handled' as const);
      },
    });
    const { hung, signals: seen } = workers(store, { leaseMs: 20_000 });
    void hung.handle(await delivery(event));
    await until(() => seen.length === 1);
    await vi.advanceTimersByTimeAsync(19_999);
    expect(seen[0]?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen[0]?.reason).toMatchObject({ name: 'HandlingAbandonedError', reason: 'max-handling' });
    expect(signals[0]).toBe(seen[0]); // the store gets the same signal, to end its transaction
  });

  it('once drain() gives up: the report lists it, the signal aborts, no timer is left, another worker runs it within one lease', async () => {
    const before = await abandoned('drain');
    const { hung, entries, signals, other, handled } = workers(new MemoryEventStore());
    const answer = hung.handle(await delivery(event));
    await until(() => signals.length === 1);
    await vi.advanceTimersByTimeAsync(2_000);
    const drained = hung.drain({ timeoutMs: 1_000 });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await drained).toEqual({ drained: false, inHand: [{ work: 'webhook.delivery', eventId: 'evt-hung', type: event.type }] });
    expect(signals[0]?.reason).toMatchObject({ name: 'HandlingAbandonedError', reason: 'drain' });
    expect((await answer).status).toBe(500);
    await until(() => hung.health().inHand === 0);
    expect(vi.getTimerCount()).toBe(0);
    expect(entries.at(-1)).toMatchObject({ outcome: 'failed', error: { name: 'HandlingAbandonedError' } });
    expect(await abandoned('drain')).toBe(before + 1);

    // renewed at 0 s (the claim) and 0-5 s: it lapses 15 s after the last renewal at the latest
    expect((await other.handle(await delivery(event))).status).toBe(409);
    await vi.advanceTimersByTimeAsync(15_000);
    expect((await other.handle(await delivery(event))).status).toBe(200);
    expect(handled).toEqual(['evt-hung']);
  });

  it('once its claim is found lost: the signal aborts (lease-lost) and renewing stops', async () => {
    const memory = new MemoryEventStore();
    let renewals = 0;
    const losing: EventStore = {
      claim: (...args) => memory.claim(...args),
      complete: (...args) => memory.complete(...args),
      release: (...args) => memory.release(...args),
      renew: () => {
        renewals += 1;
        return Promise.resolve(false);
      },
    };
    const { hung, entries, signals } = workers(losing);
    void hung.handle(await delivery(event));
    await until(() => signals.length === 1);
    await vi.advanceTimersByTimeAsync(5_000);
    await until(() => signals[0]?.aborted === true);
    expect(signals[0]?.reason).toMatchObject({ name: 'HandlingAbandonedError', reason: 'lease-lost' });
    await until(() => entries.length === 1);
    expect(entries[0]).toMatchObject({ outcome: 'failed', error: { name: 'HandlingAbandonedError' } });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(renewals).toBe(1);
  });

  it('with an owner, a redelivery to the same handler waits for the claim to lapse too (409), then runs', async () => {
    const store = new MemoryEventStore();
    let calls = 0;
    const handler = createWebhookHandler({
      secret: SECRET,
      client: makeClient(),
      store,
      owner: 'worker-a',
      logger: false,
      maxHandlingMs: 3_000,
      onEvent: () => {
        calls += 1;
        return calls === 1 ? new Promise<void>(() => undefined) : undefined;
      },
    });
    void handler.handle(await delivery(event));
    await until(() => calls === 1);
    await vi.advanceTimersByTimeAsync(3_000);
    const again = await handler.handle(await delivery(event));
    expect(again.status).toBe(409);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(12_000);
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect(calls).toBe(2);
  });
});
