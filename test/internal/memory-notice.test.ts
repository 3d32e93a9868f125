import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { FAKE_TIMERS, fakeService } from '../tracker/helpers.js';

// API.md "Operations": a part that defaults to an in-memory store says so once at first use (a
// tracker's start(), a handler's first delivery; never at import or construction, which a
// framework's build does), on stderr, unless a logger is given or the store is passed explicitly.
// Once per process: each test loads the entry points afresh (vi.resetModules) so it sees a new
// process's first use.

let stderr: MockInstance<typeof console.error>;
beforeEach(() => {
  vi.resetModules();
  stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(() => {
  vi.useRealTimers();
  stderr.mockRestore();
});

const notices = () => stderr.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('notice memory-store'));

async function makeTracker(options: Record<string, unknown>) {
  const { createStatusTracker, MemoryStatusStore } = await import('checkout-partner-sdk/tracker');
  const { client } = fakeService();
  return createStatusTracker({
    client,
    onChange: () => {},
    ...(options['store'] === 'explicit' ? { store: new MemoryStatusStore() } : {}),
    ...('logger' in options ? { logger: options['logger'] as false } : {}),
  });
}

async function startTracker(options: Record<string, unknown>): Promise<void> {
  const tracker = await makeTracker(options);
  tracker.start();
  const drained = tracker.drain({ timeoutMs: 100 });
  await vi.advanceTimersByTimeAsync(100);
  await drained;
}

async function makeHandler(options: Record<string, unknown>) {
  const { createWebhookHandler, MemoryEventStore } = await import('checkout-partner-sdk/webhooks');
  const { client } = fakeService();
  return createWebhookHandler({
    secret: 'whsec_test',
    client,
    onEvent: () => {},
    resolveOrderExternalId: () => undefined,
    ...(options['store'] === 'explicit' ? { store: new MemoryEventStore() } : {}),
    ...('logger' in options ? { logger: options['logger'] as false } : {}),
  });
}

/** Makes a handler and hands it one delivery (unsigned: answered 401, a first use all the same). */
async function useHandler(options: Record<string, unknown>): Promise<void> {
  const handler = await makeHandler(options);
  const response = await handler.handle(new Request('http://127.0.0.1/webhooks', { method: 'POST', body: '{}' }));
  expect(response.status).toBe(401);
}

describe('the in-memory default is said once at first use', () => {
  it('importing the entries and constructing a tracker and a handler print nothing', async () => {
    await makeTracker({});
    await makeHandler({});
    await makeHandler({});
    expect(notices()).toEqual([]);
  });

  it('a tracker without a store: one stderr line at its first start, naming the shared stores, not repeated', async () => {
    await startTracker({});
    await startTracker({});
    expect(notices()).toEqual([
      expect.stringMatching(
        /^checkout-partner-sdk tracker notice memory-store: .*several replicas.*lost on restart.*RedisStatusStore.*PostgresStatusStore/,
      ),
    ]);
  });

  it('a webhook handler without a store: one stderr line at its first delivery, naming the shared stores, not repeated', async () => {
    await useHandler({});
    await useHandler({});
    expect(notices()).toEqual([
      expect.stringMatching(
        /^checkout-partner-sdk webhook notice memory-store: .*several replicas.*lost on restart.*RedisEventStore.*PostgresEventStore/,
      ),
    ]);
  });

  it('nothing when the store is passed explicitly, even a memory one', async () => {
    await startTracker({ store: 'explicit' });
    await useHandler({ store: 'explicit' });
    expect(notices()).toEqual([]);
  });

  it('nothing with logger: false or a logger given', async () => {
    await startTracker({ logger: false });
    await useHandler({ logger: false });
    await startTracker({ logger: () => {} });
    await useHandler({ logger: () => {} });
    expect(notices()).toEqual([]);
  });

  it("with CHECKOUT_LOG_FORMAT=json, one JSON object like the part's other default lines", async () => {
    process.env['CHECKOUT_LOG_FORMAT'] = 'json';
    try {
      await useHandler({});
    } finally {
      delete process.env['CHECKOUT_LOG_FORMAT'];
    }
    const [line] = notices();
    expect(JSON.parse(line ?? '')).toMatchObject({
      level: 'warn',
      logger: 'checkout-partner-sdk',
      event: 'webhook.notice',
      notice: 'memory-store',
      message: expect.stringMatching(/RedisEventStore/),
    });
  });
});
