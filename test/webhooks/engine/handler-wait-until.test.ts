import { createWebhookHandler, MemoryEventStore, type EventStore, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferred, delivery, makeClient, memoryLogger, mockCheckout, recordingStore, SECRET, until } from '../helpers.js';

// On Cloudflare Workers the runtime may stop a request's work once its response is sent, unless the
// work was handed to ctx.waitUntil: handle(request, { waitUntil }) hands over what goes on after the answer.

mockCheckout();

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

/** A stand-in for a Worker's ExecutionContext.waitUntil that keeps what it gets and how each ended. */
function executionContext() {
  const handed: Promise<unknown>[] = [];
  const ended: ('resolved' | 'rejected')[] = [];
  const waitUntil = (promise: Promise<unknown>): void => {
    handed.push(promise);
    promise.then(
      () => ended.push('resolved'),
      () => ended.push('rejected'),
    );
  };
  return { handed, ended, waitUntil };
}

describe('handle(request, { waitUntil })', () => {
  it('hands the work of a timed-out delivery to waitUntil; it settles once the claim is completed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const gate = deferred();
    const onEvent = vi.fn(() => gate.promise);
    const { calls, store } = recordingStore();
    const { entries, logger } = memoryLogger();
    const handler = createWebhookHandler(base({ onEvent, store, logger, responseTimeoutMs: 2_000 }));
    const ctx = executionContext();
    const answered = handler.handle(await delivery({ eventId: 'evt-w', type: 'custom' }), { waitUntil: ctx.waitUntil });
    await until(() => onEvent.mock.calls.length === 1);
    expect(ctx.handed).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(2_000);
    expect((await answered).status).toBe(503);
    expect(ctx.handed).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ctx.ended).toEqual([]); // still running: the runtime must keep it alive

    gate.resolve();
    await ctx.handed[0];
    expect(calls).toEqual(['claim:evt-w', 'complete:evt-w']);
    expect(entries.at(-1)).toMatchObject({ outcome: 'handled', late: true });
    expect(ctx.ended).toEqual(['resolved']);
  });

  it('hands over a promise that resolves (never rejects) when the late work fails and releases its claim', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const gate = deferred();
    const { calls, store } = recordingStore();
    const handler = createWebhookHandler(
      base({ store, responseTimeoutMs: 1_000, onEvent: () => gate.promise.then(() => Promise.reject(new Error('late failure'))) }),
    );
    const ctx = executionContext();
    const answered = handler.handle(await delivery({ eventId: 'evt-f', type: 'custom' }), { waitUntil: ctx.waitUntil });
    await until(() => calls.length === 1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await answered).status).toBe(503);
    gate.resolve();
    await ctx.handed[0];
    expect(ctx.ended).toEqual(['resolved']);
    expect(calls).toEqual(['claim:evt-f', 'release:evt-f']);
  });

  it('hands over the retries of a complete() that failed, after answering 200', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const inner = new MemoryEventStore();
    let completes = 0;
    const store: EventStore = {
      claim: (eventId, leaseMs) => inner.claim(eventId, leaseMs),
      complete: async (eventId, lease) => {
        completes += 1;
        if (completes === 1) throw new Error('store blip');
        await inner.complete(eventId, lease);
      },
      release: (eventId, lease) => inner.release(eventId, lease),
    };
    const handler = createWebhookHandler(base({ store }));
    const ctx = executionContext();
    expect((await handler.handle(await delivery({ eventId: 'evt-c', type: 'custom' }), { waitUntil: ctx.waitUntil })).status).toBe(200);
    expect(ctx.handed).toHaveLength(1);
    expect(ctx.ended).toEqual([]);
    await vi.advanceTimersByTimeAsync(25); // the first retry
    await ctx.handed[0];
    expect(completes).toBe(2);
    expect(ctx.ended).toEqual(['resolved']);
    expect(await inner.claim('evt-c', 1_000)).toBe('done');
  });

  it('hands nothing over when the delivery finished in time with nothing left running', async () => {
    const ctx = executionContext();
    const handler = createWebhookHandler(base());
    expect((await handler.handle(await delivery({ eventId: 'evt-ok', type: 'custom' }), { waitUntil: ctx.waitUntil })).status).toBe(200);
    expect((await handler.handle(await delivery({ eventId: 'evt-ok', type: 'custom' }), {})).status).toBe(200);
    expect(ctx.handed).toHaveLength(0);
  });

  it('still answers when waitUntil throws', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const onEvent = vi.fn(() => new Promise<void>((r) => setTimeout(r, 50)));
    const handler = createWebhookHandler(base({ responseTimeoutMs: 10, leaseMs: 1_000, onEvent }));
    const waitUntil = vi.fn(() => {
      throw new Error('outside of a request');
    });
    const answered = handler.handle(await delivery({ eventId: 'evt-t', type: 'custom' }), { waitUntil });
    await until(() => onEvent.mock.calls.length === 1);
    await vi.advanceTimersByTimeAsync(10);
    expect((await answered).status).toBe(503);
    expect(waitUntil).toHaveBeenCalledOnce();
    const draining = handler.drain();
    await vi.advanceTimersByTimeAsync(50);
    await draining;
  });

  it.each<[string, unknown]>([
    ['null options', null],
    ['a string', 'waitUntil'],
    ['a waitUntil that is not a function', { waitUntil: 'ctx.waitUntil' }],
    ['a waitUntil object', { waitUntil: {} }],
  ])('rejects %s with a TypeError before reading the request', async (_label, options) => {
    const onEvent = vi.fn();
    const handler = createWebhookHandler(base({ onEvent }));
    const request = await delivery({ eventId: 'evt-x', type: 'custom' });
    await expect(handler.handle(request, options as never)).rejects.toThrow(TypeError);
    expect(request.bodyUsed).toBe(false);
    expect(onEvent).not.toHaveBeenCalled();
  });
});
