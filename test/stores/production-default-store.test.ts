import { CheckoutError, StoreRequiredError } from 'checkout-partner-sdk';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler, MemoryEventStore } from 'checkout-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { FAKE_TIMERS, fakeService } from '../tracker/helpers.js';
import { delivery, makeClient, mockCheckout, SECRET } from '../webhooks/helpers.js';

// API.md "Operations": with NODE_ENV=production, a handler (with onEvent) or a tracker made without
// a store refuses to start, at first use (a delivery, start()), never at import or construction,
// which `next build` runs with NODE_ENV=production; the memory store passed explicitly is fine.

mockCheckout();

let stderr: MockInstance<typeof console.error>;
beforeEach(() => {
  vi.stubEnv('NODE_ENV', 'production');
  stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(() => {
  vi.useRealTimers();
  stderr.mockRestore();
  vi.unstubAllEnvs();
});

const settled = { eventId: 'evt-prod', type: 'pix.deposit.created' };

describe('NODE_ENV=production without a store', () => {
  it('a tracker is made quietly, then start() throws StoreRequiredError naming the stores', () => {
    const { client } = fakeService();
    const tracker = createStatusTracker({ client, onChange: () => {} });
    expect(stderr).not.toHaveBeenCalled();
    let refusal: unknown;
    try {
      tracker.start();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(StoreRequiredError);
    expect(refusal).toBeInstanceOf(CheckoutError);
    expect(refusal).toMatchObject({ name: 'StoreRequiredError' });
    for (const store of ['RedisStatusStore', 'PostgresStatusStore', 'MemoryStatusStore']) expect(String(refusal)).toContain(store);
    expect(stderr).not.toHaveBeenCalled();
  });

  it('a tracker given the memory store explicitly starts', async () => {
    const { client } = fakeService();
    const tracker = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: () => {}, logger: false });
    tracker.start();
    expect(await tracker.health({ store: false })).toMatchObject({ running: true });
    const drained = tracker.drain({ timeoutMs: 100 });
    await vi.advanceTimersByTimeAsync(100);
    await drained;
  });

  it('a handler is made quietly, then answers each delivery 500 and logs the refusal, naming the stores', async () => {
    const onEvent = vi.fn();
    const handler = createWebhookHandler({ secret: SECRET, client: makeClient(), resolveOrderExternalId: () => undefined, onEvent });
    expect(stderr).not.toHaveBeenCalled();
    const answer = await handler.handle(await delivery(settled));
    expect(answer.status).toBe(500);
    expect(await answer.text()).toBe('Internal Server Error: the webhook handler is misconfigured');
    expect(onEvent).not.toHaveBeenCalled();
    const lines = stderr.mock.calls.map((call) => String(call[0]));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^checkout-partner-sdk webhook misconfigured status=500 .*error=StoreRequiredError ".*RedisEventStore.*PostgresEventStore.*MemoryEventStore/,
    );
  });

  it('a handler given the memory store explicitly, or one with only a tracker (which hands each change over once), works', async () => {
    const explicit = createWebhookHandler({
      secret: SECRET,
      client: makeClient(),
      store: new MemoryEventStore(),
      logger: false,
      resolveOrderExternalId: () => undefined,
      onEvent: () => {},
    });
    expect((await explicit.handle(await delivery(settled))).status).toBe(200);
    const { client } = fakeService();
    const tracker = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: () => {}, logger: false });
    const intake = createWebhookHandler({ secret: SECRET, client: makeClient(), tracker, logger: false });
    expect((await intake.handle(await delivery(settled))).status).toBe(200);
  });

  it('outside production the default store is kept', async () => {
    vi.stubEnv('NODE_ENV', 'development');
    const handler = createWebhookHandler({
      secret: SECRET,
      client: makeClient(),
      resolveOrderExternalId: () => undefined,
      onEvent: () => {},
    });
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
  });
});
