import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { FAKE_TIMERS, fakeService } from '../tracker/helpers.js';

// API.md "Operations": a part that defaults to an in-memory store says so once at start, on stderr,
// unless a logger is given or the store is passed explicitly. Once per process: each test loads
// the entry points afresh (vi.resetModules) so it sees a new process's first start.

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

async function startTracker(options: Record<string, unknown>): Promise<void> {
  const { createStatusTracker, MemoryStatusStore } = await import('checkout-partner-sdk/tracker');
  const { client } = fakeService();
  const tracker = createStatusTracker({
    client,
    onChange: () => {},
    ...(options['store'] === 'explicit' ? { store: new MemoryStatusStore() } : {}),
    ...('logger' in options ? { logger: options['logger'] as false } : {}),
  });
  tracker.start();
  const drained = tracker.drain({ timeoutMs: 100 });
  await vi.advanceTimersByTimeAsync(100);
  await drained;
}

async function makeHandler(options: Record<string, unknown>): Promise<void> {
  const { createWebhookHandler, MemoryEventStore } = await import('checkout-partner-sdk/webhooks');
  const { client } = fakeService();
  createWebhookHandler({
    secret: 'whsec_test',
    client,
    onEvent: () => {},
    resolveOrderExternalId: () => undefined,
    ...(options['store'] === 'explicit' ? { store: new MemoryEventStore() } : {}),
    ...('logger' in options ? { logger: options['logger'] as false } : {}),
  });
}

describe('the in-memory default is said once at start', () => {
  it('a tracker without a store: one stderr line at its first start, naming the shared stores, not repeated', async () => {
    await startTracker({});
    await startTracker({});
    expect(notices()).toEqual([
      expect.stringMatching(
        /^checkout-partner-sdk tracker notice memory-store: .*several replicas.*lost on restart.*RedisStatusStore.*PostgresStatusStore/,
      ),
    ]);
  });

  it('a webhook handler without a store: one stderr line when it is created, naming the shared stores, not repeated', async () => {
    await makeHandler({});
    await makeHandler({});
    expect(notices()).toEqual([
      expect.stringMatching(
        /^checkout-partner-sdk webhook notice memory-store: .*several replicas.*lost on restart.*RedisEventStore.*PostgresEventStore/,
      ),
    ]);
  });

  it('nothing when the store is passed explicitly, even a memory one', async () => {
    await startTracker({ store: 'explicit' });
    await makeHandler({ store: 'explicit' });
    expect(notices()).toEqual([]);
  });

  it('nothing with logger: false or a logger given', async () => {
    await startTracker({ logger: false });
    await makeHandler({ logger: false });
    await startTracker({ logger: () => {} });
    await makeHandler({ logger: () => {} });
    expect(notices()).toEqual([]);
  });

  it("with CHECKOUT_LOG_FORMAT=json, one JSON object like the part's other default lines", async () => {
    process.env['CHECKOUT_LOG_FORMAT'] = 'json';
    try {
      await makeHandler({});
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
