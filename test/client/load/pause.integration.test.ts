import { afterEach, describe, expect, it } from 'vitest';
import { CheckoutClient, RateLimitError, type LogEntry } from 'checkout-partner-sdk';
import { startServer, type RealServer } from '../real-server.js';

type ClientLogEntry = Extract<LogEntry, { event: `client.${string}` }>;

// A 429 with Retry-After pauses every request of the client, not only the call that got it
// (real server on 127.0.0.1).

let server: RealServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('429 with Retry-After', () => {
  it('pauses the concurrent calls too; a call whose deadline ends first fails at once with RateLimitError', async () => {
    const arrivals: { id: string; at: number }[] = [];
    let limited = true;
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      const id = req.url.split('/').pop() ?? '';
      arrivals.push({ id, at: performance.now() });
      if (id === 'first' && limited) {
        limited = false;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"message":"slow down"}');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ externalId: id }));
      }
      return true;
    });
    let got429: () => void = () => undefined;
    const throttled = new Promise<void>((resolve) => (got429 = resolve));
    const logger = (entry: ClientLogEntry) => {
      if (entry.event === 'client.attempt' && entry.status === 429) got429();
    };
    const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-1', partnerSecret: 's', logger });
    await client.getAccessToken();
    const first = client.getOrderByExternalId('first');
    await throttled;
    const pausedAt = performance.now();
    const others = Promise.all(Array.from({ length: 8 }, (_, i) => client.getOrderByExternalId(`other-${i}`)));
    const hurried = await client.getOrderByExternalId('hurried', { timeoutMs: 300 }).catch((e: unknown) => e);
    // failed at once, not at its deadline: the pause was known to outlast it
    expect(hurried).toBeInstanceOf(RateLimitError);
    expect((hurried as RateLimitError).retryAfterMs).toBeGreaterThan(0);
    expect((hurried as RateLimitError).retryAfterMs).toBeLessThanOrEqual(1_000);
    expect((hurried as RateLimitError).attempts).toBe(0);
    await expect(first).resolves.toMatchObject({ externalId: 'first' });
    await expect(others).resolves.toHaveLength(8);
    const later = arrivals.filter((a) => a.id !== 'first' || a.at > pausedAt);
    expect(later.map((a) => a.id).sort()).toEqual(['first', ...Array.from({ length: 8 }, (_, i) => `other-${i}`)].sort());
    // nothing reached the service during the pause (1 s from the 429; measured from when the client saw it)
    for (const arrival of later) expect(arrival.at - pausedAt).toBeGreaterThan(900);
  });

  it('a Retry-After over 60 s pauses the client 60 s at most: calls that can wait that long are sent then', async () => {
    let orders = 0;
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      orders += 1;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' }).end('{}');
      return true;
    });
    const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-1', partnerSecret: 's' });
    const first = await client.getOrderByExternalId('o-1').catch((e: unknown) => e);
    expect(first).toBeInstanceOf(RateLimitError);
    expect((first as RateLimitError).retryAfterMs).toBe(3_600_000);
    // the next call, bounded by the client's 30 s timeoutMs, cannot wait out the pause: it fails unsent
    const next = await client.getOrderByExternalId('o-2').catch((e: unknown) => e);
    expect(next).toBeInstanceOf(RateLimitError);
    expect((next as RateLimitError).retryAfterMs).toBeGreaterThan(59_000);
    expect((next as RateLimitError).retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(orders).toBe(1);
  });
});
