import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckoutClient, TimeoutError } from 'checkout-partner-sdk';
import { startServer, type RealServer } from '../real-server.js';

// rateLimit.concurrency against a real server on 127.0.0.1 that accepts connections and never
// answers: the open sockets stay within the bound, queued calls end by their own deadline or
// signal, and nothing is left behind.

let server: RealServer | undefined;
const hanging: ServerResponse[] = [];
afterEach(async () => {
  for (const res of hanging.splice(0)) res.destroy();
  await server?.close();
  server = undefined;
});

/** Token exchanges answer; order reads never do (`ok` answers at once). Records the most sockets ever open. */
async function silentService() {
  const state = { maxSockets: 0, orders: 0 };
  server = await startServer((req, res) => {
    if (!req.url?.includes('/orders/')) return;
    state.orders += 1;
    state.maxSockets = Math.max(state.maxSockets, server!.openSockets());
    if (req.url.endsWith('/ok')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"externalId":"ok"}');
      return true;
    }
    hanging.push(res);
    return true;
  });
  return state;
}

const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

describe('rateLimit.concurrency', () => {
  it('a service that never answers: requests in flight never above the bound (sockets within twice it), every call ends by its deadline, nothing left', async () => {
    const state = await silentService();
    const before = timers();
    // requests in flight, as fetch sees them: from the call until its response or its abort
    let inFlight = 0;
    let maxInFlight = 0;
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      try {
        return await globalThis.fetch(input, init);
      } finally {
        inFlight -= 1;
      }
    };
    const client = new CheckoutClient({
      baseUrl: server!.url,
      partnerId: 'p-1',
      partnerSecret: 's',
      timeoutMs: 250,
      rateLimit: { concurrency: 4 },
      fetch,
    });
    await client.getAccessToken();
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const began = performance.now();
        const error = await client.getOrderByExternalId(`o-${i}`, { timeoutMs: 600 }).catch((e: unknown) => e);
        return { error, ms: performance.now() - began };
      }),
    );
    for (const { error, ms } of outcomes) {
      expect(error).toBeInstanceOf(TimeoutError);
      // by its own deadline (600 ms), with room for a loaded machine; never the 30 s default
      expect(ms).toBeLessThan(600 + 1_000);
    }
    expect(maxInFlight).toBe(4);
    // undici keeps the connection of an aborted request in its pool for a while (plain fetch, 4
    // workers aborting at 100 ms, shows 8 open here too): at most one such per slot, 2 × the bound,
    // not one per call; plus the token exchange's idle keep-alive socket. This server runs in the test's
    // own process, so under CPU starvation it learns of aborted sockets' closes late (11 seen once with
    // a busy core beside the suite): 3 × the bound here; the exact bound is maxInFlight above, and
    // scripts/load checks sockets from a separate process (2 × bound + 1)
    expect(state.maxSockets).toBeLessThanOrEqual(3 * 4);
    // the bound held the requests back: 40 calls with 600 ms each, at most 4 attempts of 250 ms at a time
    expect(state.orders).toBeLessThan(40);
    // nothing of the client is left running: no request in flight, no timer (the queue's included)
    expect(inFlight).toBe(0);
    expect(timers()).toBeLessThanOrEqual(before);
  }, 20_000);

  it('a queued call is bounded by its own timeoutMs: it fails while the request ahead still hangs, and never reaches the service', async () => {
    const state = await silentService();
    const client = new CheckoutClient({
      baseUrl: server!.url,
      partnerId: 'p-1',
      partnerSecret: 's',
      timeoutMs: 10_000,
      rateLimit: { concurrency: 1 },
    });
    await client.getAccessToken();
    const ahead = client.getOrderByExternalId('o-1', { maxRetries: 0 }).catch((e: unknown) => e);
    let aheadSettled = false;
    void ahead.then(() => (aheadSettled = true));
    await until(() => state.orders === 1);
    const queued = await client.getOrderByExternalId('o-2', { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(queued).toBeInstanceOf(TimeoutError);
    expect((queued as TimeoutError).attempts).toBe(0);
    expect(aheadSettled).toBe(false);
    expect(state.orders).toBe(1);
  });

  it('an aborted queued call leaves the queue at once, and the next one takes the free slot', async () => {
    const state = await silentService();
    const client = new CheckoutClient({
      baseUrl: server!.url,
      partnerId: 'p-1',
      partnerSecret: 's',
      timeoutMs: 10_000,
      rateLimit: { concurrency: 1 },
    });
    await client.getAccessToken();
    const controller = new AbortController();
    const ahead = client.getOrderByExternalId('o-1', { signal: controller.signal });
    await until(() => state.orders === 1);
    const behind = new AbortController();
    const queued = client.getOrderByExternalId('o-2', { signal: behind.signal }).catch((e: unknown) => e);
    const reason = new Error('caller gave up');
    behind.abort(reason);
    expect(await queued).toBe(reason);
    // the slot is still held by the first call; once it aborts, a new call goes straight out
    controller.abort();
    await expect(ahead).rejects.toMatchObject({ name: 'AbortError' });
    await expect(client.getOrderByExternalId('ok')).resolves.toMatchObject({ externalId: 'ok' });
    expect(state.orders).toBe(2);
  });

  it('a queue timeout is not retried and says what held it', async () => {
    const state = await silentService();
    // one request per 2 s: the token exchange takes the first turn, the read waits past its 300 ms
    const client = new CheckoutClient({
      baseUrl: server!.url,
      partnerId: 'p-1',
      partnerSecret: 's',
      timeoutMs: 300,
      rateLimit: { requestsPerSecond: 0.5 },
    });
    await client.getAccessToken();
    const queued = await client.getOrderByExternalId('ok', { maxRetries: 2 }).catch((e: unknown) => e);
    expect(queued).toBeInstanceOf(TimeoutError);
    expect((queued as TimeoutError).message).toMatch(/waiting for its turn.*rateLimit/);
    expect((queued as TimeoutError).attempts).toBe(0);
    expect(state.orders).toBe(0);
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}
