import { createWebhookHandler, MemoryEventStore, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reached, realTurn, settled } from '../../helpers/fake-time.js';
import { deferred, delivery, until, makeClient, memoryLogger, mockCheckout, recordingStore, SECRET } from '../helpers.js';

const { state } = mockCheckout();

afterEach(() => {
  vi.useRealTimers();
});

const base = (overrides: Partial<WebhookHandlerOptions> = {}): WebhookHandlerOptions => ({
  secret: SECRET,
  client: makeClient(),
  onEvent: () => undefined,
  // no resolvers on purpose (nothing to confirm here): no construction warning, no stderr lines
  logger: false,
  ...overrides,
});

describe('concurrent deliveries', () => {
  it('runs onEvent exactly once for 50 concurrent deliveries of one event; the others get 409 or 200', async () => {
    state.orders.set('o-1', { externalId: 'o-1', settlement: { status: 'Settled', tradeId: 't-1' } });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const onEvent = vi.fn(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    const handler = createWebhookHandler(base({ onEvent, resolveOrderExternalId: () => 'o-1' }));
    const event = { eventId: 'evt-concurrent', type: 'otc.trade.settled', tradeId: 't-1' };
    const requests = await Promise.all(Array.from({ length: 50 }, () => delivery(event)));
    const handled = Promise.all(requests.map((r) => handler.handle(r)));
    await reached(() => onEvent.mock.calls.length === 1, 'onEvent called');
    await vi.advanceTimersByTimeAsync(5);
    const statuses = (await settled(handled, 'the deliveries were not all answered')).map((r) => r.status);
    expect(onEvent).toHaveBeenCalledOnce();
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('handles different events concurrently, each once', async () => {
    const seen: string[] = [];
    const handler = createWebhookHandler(base({ onEvent: ({ event }) => void seen.push(event.eventId) }));
    const requests = await Promise.all(Array.from({ length: 20 }, (_, i) => delivery({ eventId: `e-${i % 10}`, type: 'custom' })));
    await Promise.all(requests.map((r) => handler.handle(r)));
    expect(seen.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `e-${i}`).sort());
  });
});

describe('responseTimeoutMs', () => {
  it('answers 503 at the timeout while the work goes on; a later redelivery gets 409, then 200 once it completed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const gate = deferred();
    const onEvent = vi.fn(() => gate.promise);
    const { calls, store } = recordingStore();
    const { entries, logger } = memoryLogger();
    const handler = createWebhookHandler(base({ onEvent, store, logger, responseTimeoutMs: 2_000 }));
    const event = { eventId: 'evt-slow', type: 'custom' };
    let answered: Response | undefined;
    const first = handler.handle(await delivery(event)).then((r) => (answered = r));
    await until(() => onEvent.mock.calls.length === 1);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(answered).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await first;
    expect(answered?.status).toBe(503);
    expect(entries).toMatchObject([{ outcome: 'timeout', status: 503, eventId: 'evt-slow', type: 'custom' }]);

    expect((await handler.handle(await delivery(event))).status).toBe(409);
    gate.resolve();
    await until(() => calls.includes('complete:evt-slow'));
    expect(entries.at(-1)).toMatchObject({ outcome: 'handled', late: true, eventId: 'evt-slow' });
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('releases the claim when timed-out work fails, so a redelivery runs it again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const gate = deferred();
    let runs = 0;
    const { calls, store } = recordingStore();
    const handler = createWebhookHandler(
      base({
        store,
        responseTimeoutMs: 1_000,
        onEvent: async () => {
          runs += 1;
          if (runs === 1) {
            await gate.promise;
            throw new Error('failed late');
          }
        },
      }),
    );
    const event = { eventId: 'evt-late-fail', type: 'custom' };
    const first = handler.handle(await delivery(event));
    await until(() => runs === 1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await first).status).toBe(503);
    gate.resolve();
    await until(() => calls.includes('release:evt-late-fail'));
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect(runs).toBe(2);
  });
});

describe('drain()', () => {
  it('answers 503 to new deliveries and resolves once the work in hand completed its claim', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const gate = deferred();
    const onEvent = vi.fn(() => gate.promise);
    const { calls, store } = recordingStore();
    const { entries, logger } = memoryLogger();
    const handler = createWebhookHandler(base({ onEvent, store, logger }));
    const inHand = handler.handle(await delivery({ eventId: 'evt-a', type: 'custom' }));
    await until(() => onEvent.mock.calls.length === 1);

    let drained = false;
    const draining = handler.drain().then(() => (drained = true));
    const refused = await handler.handle(await delivery({ eventId: 'evt-b', type: 'custom' }));
    expect(refused.status).toBe(503);
    expect(entries.at(-1)).toMatchObject({ outcome: 'draining', status: 503 });
    await vi.advanceTimersByTimeAsync(20);
    expect(drained).toBe(false);

    gate.resolve();
    await settled(draining, 'drain did not resolve once the work completed');
    expect(drained).toBe(true);
    expect((await inHand).status).toBe(200);
    expect(calls).toEqual(['claim:evt-a', 'complete:evt-a']);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('waits for work whose response already timed out, and resolves at once when idle', async () => {
    const idle = createWebhookHandler(base());
    await expect(idle.drain()).resolves.toEqual({ drained: true, inHand: [] });

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const gate = deferred();
    const { calls, store } = recordingStore();
    const onEvent = vi.fn(() => gate.promise.then(() => Promise.reject(new Error('x'))));
    const handler = createWebhookHandler(base({ store, responseTimeoutMs: 20, leaseMs: 1_000, onEvent }));
    const answered = handler.handle(await delivery({ eventId: 'evt-t', type: 'custom' }));
    await until(() => onEvent.mock.calls.length === 1);
    await vi.advanceTimersByTimeAsync(20);
    expect((await settled(answered, 'no answer at responseTimeoutMs')).status).toBe(503);
    let drained = false;
    const draining = handler.drain().then(() => (drained = true));
    await vi.advanceTimersByTimeAsync(20);
    expect(drained).toBe(false);
    gate.resolve();
    await settled(draining, 'drain did not resolve once the work ended');
    expect(calls).toEqual(['claim:evt-t', 'release:evt-t']);
  });
});

describe('drain({ timeoutMs })', () => {
  it('resolves at timeoutMs with what is still in hand, whose claim then lapses by its lease and is redelivered', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
    const store = new MemoryEventStore();
    const stuck = vi.fn(() => new Promise<void>(() => undefined)); // an onEvent that never settles
    const handler = createWebhookHandler(base({ store, onEvent: stuck, responseTimeoutMs: 50, leaseMs: 400 }));
    const event = { eventId: 'evt-stuck', type: 'otc.trade.cancelled' };
    const answered = handler.handle(await delivery(event));
    await until(() => stuck.mock.calls.length === 1); // claimed at 0 ms
    await vi.advanceTimersByTimeAsync(50);
    expect((await answered).status).toBe(503);

    let report: unknown;
    void handler.drain({ timeoutMs: 150 }).then((r) => (report = r));
    await vi.advanceTimersByTimeAsync(149);
    expect(report).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1); // 200 ms
    expect(report).toEqual({ drained: false, inHand: [{ work: 'webhook.delivery', eventId: 'evt-stuck', type: 'otc.trade.cancelled' }] });

    // renewed every third of leaseMs until drain gave up (last at ~133 ms), the claim lapses at ~533 ms: until
    // then the next process (here a second handler on the same store) gets 409, then it runs the event
    const onEvent = vi.fn();
    const next = createWebhookHandler(base({ store, onEvent }));
    expect((await next.handle(await delivery(event))).status).toBe(409);
    await vi.advanceTimersByTimeAsync(332);
    expect((await next.handle(await delivery(event))).status).toBe(409);
    await vi.advanceTimersByTimeAsync(2);
    expect((await next.handle(await delivery(event))).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it("waits 10 s by default: with the tracker's 10 s and a pre-stop wait, both fit a 30 s termination grace period", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      const onEvent = vi.fn(() => new Promise<void>(() => undefined));
      const handler = createWebhookHandler(base({ onEvent, responseTimeoutMs: 1_000 }));
      const answered = handler.handle(await delivery({ eventId: 'evt-default', type: 'custom' }));
      // let the delivery reach onEvent before moving the clock
      await until(() => onEvent.mock.calls.length === 1);
      await vi.advanceTimersByTimeAsync(1_000);
      expect((await answered).status).toBe(503);
      let report: unknown;
      void handler.drain().then((r) => (report = r));
      await vi.advanceTimersByTimeAsync(9_999);
      expect(report).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(report).toEqual({ drained: false, inHand: [{ work: 'webhook.delivery', eventId: 'evt-default', type: 'custom' }] });
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts a delivery not yet identified, and rejects bad options with TypeError', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const scheme = vi.fn(() => new Promise<boolean>(() => undefined));
    const handler = createWebhookHandler(base({ scheme, responseTimeoutMs: 50 }));
    const answered = handler.handle(await delivery({ eventId: 'evt-x', type: 'custom' }));
    await until(() => scheme.mock.calls.length === 1);
    await vi.advanceTimersByTimeAsync(50);
    expect((await settled(answered, 'no answer at responseTimeoutMs')).status).toBe(503);
    const report = handler.drain({ timeoutMs: 20 });
    await vi.advanceTimersByTimeAsync(20);
    await expect(settled(report, 'drain did not resolve at its timeoutMs')).resolves.toEqual({
      drained: false,
      inHand: [{ work: 'webhook.delivery', eventId: undefined, type: undefined }],
    });
    await expect(handler.drain({ timeoutMs: -1 })).rejects.toThrow(/drain timeoutMs must be a positive number/);
    await expect(handler.drain({ timeoutMs: 2 ** 31 })).rejects.toThrow(/drain timeoutMs must be at most 2147483647 milliseconds/);
    await expect(handler.drain(null as never)).rejects.toThrow(TypeError);
  });
});

describe('logger', () => {
  it('an async logger that rejects (function or pino-like) leaves the delivery answered and no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const rejecting = async () => {
        throw new Error('log sink down');
      };
      const loggers = [rejecting, { info: rejecting, warn: rejecting, error: rejecting }];
      for (const [index, logger] of loggers.entries()) {
        // the object's rejecting warn gets the construction warning too; a function logger cannot
        // take it (it would go to stderr), so that handler gets a resolver
        const resolver = typeof logger === 'function' ? { resolveOrderExternalId: () => undefined } : {};
        // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a logger that returns a rejecting promise is what this test feeds
        const handler = createWebhookHandler(base({ logger, ...resolver }));
        expect((await handler.handle(await delivery({ eventId: `evt-log-${index}`, type: 'custom' }))).status).toBe(200);
        expect(
          (await handler.handle(await delivery({ eventId: `evt-log-${index}`, type: 'custom' }, { secret: 'wrong-secret' }))).status,
        ).toBe(401);
      }
      // unhandled rejections are reported after the microtask queue drains, before the next turn
      await realTurn();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('options', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['no secret', { secret: undefined }, /secret must be a non-empty string/],
    ['an empty secret', { secret: '' }, /secret must be a non-empty string/],
    ['an empty secret list', { secret: [] }, /secret must be a non-empty string or a non-empty array/],
    ['a list with a non-string', { secret: ['a', 3] }, /secret\[1\] must be a non-empty string/],
    ['no client', { client: undefined }, /client must be a CheckoutClient/],
    ['a client without the reads', { client: {} }, /client must be a CheckoutClient/],
    ['no onEvent', { onEvent: undefined }, /onEvent must be a function/],
    ['a store without release', { store: { claim() {}, complete() {} } }, /store must be an EventStore/],
    ['a non-function resolver', { resolveOrderExternalId: 'id' }, /resolveOrderExternalId must be a function/],
    ['a bad header name', { signatureHeader: 'x bad' }, /signatureHeader must be an HTTP header name/],
    ['a non-function scheme', { scheme: {} }, /scheme must be a function/],
    ['maxBodyBytes 0', { maxBodyBytes: 0 }, /maxBodyBytes must be a whole number/],
    ['maxBodyBytes 1.5', { maxBodyBytes: 1.5 }, /maxBodyBytes must be a whole number/],
    ['a negative responseTimeoutMs', { responseTimeoutMs: -1 }, /responseTimeoutMs must be a positive number/],
    ['leaseMs NaN', { leaseMs: Number.NaN }, /leaseMs must be a positive number/],
    // a timer cannot wait longer: it would fire at once (every delivery 503, every status read cut off)
    [
      'responseTimeoutMs past 2^31 - 1',
      { responseTimeoutMs: 2 ** 31, leaseMs: 2 ** 32 },
      /responseTimeoutMs must be at most 2147483647 milliseconds/,
    ],
    ['leaseMs past 2^31 - 1', { leaseMs: 2 ** 31 }, /leaseMs must be at most 2147483647 milliseconds/],
    [
      'leaseMs under responseTimeoutMs',
      { leaseMs: 1_000, responseTimeoutMs: 2_000 },
      /leaseMs \(1000\) must be at least responseTimeoutMs/,
    ],
    ['confirm.attempts 0', { confirm: { attempts: 0 } }, /confirm.attempts must be a whole number/],
    ['a negative confirm.delayMs', { confirm: { delayMs: -5 } }, /confirm.delayMs must be a number/],
    ['confirm.delayMs past 2^31 - 1', { confirm: { delayMs: 2 ** 31 } }, /confirm.delayMs must be at most 2147483647 milliseconds/],
    [
      'a logger without warn',
      { logger: { info() {}, error() {} } },
      /logger must be a function, an object with info, warn and error methods/,
    ],
    ['an unknown option', { secrets: ['a'] }, /unknown option "secrets"/],
  ])('rejects %s with a TypeError', (_label, overrides, message) => {
    const options = { ...base(), ...overrides } as WebhookHandlerOptions;
    expect(() => createWebhookHandler(options)).toThrow(TypeError);
    expect(() => createWebhookHandler(options)).toThrow(message);
  });

  it('rejects options that are not an object, and never shows a secret in a message', () => {
    expect(() => createWebhookHandler(null as never)).toThrow(TypeError);
    try {
      createWebhookHandler({ ...base(), secret: ['whsec_visible', ''] });
    } catch (error) {
      expect(String(error)).not.toContain('whsec_visible');
    }
  });

  it('accepts a partial confirm and a custom store', async () => {
    const store = new MemoryEventStore({ maxEntries: 10 });
    const handler = createWebhookHandler(base({ store, confirm: { attempts: 1 } }));
    expect((await handler.handle(await delivery({ eventId: 'e', type: 'custom' }))).status).toBe(200);
    expect(await store.claim('e', 1_000)).toBe('done');
  });

  it('rejects a handle() argument that is not a Request', async () => {
    const handler = createWebhookHandler(base());
    await expect(handler.handle({} as Request)).rejects.toThrow(TypeError);
  });
});
