import { afterEach, describe, expect, it } from 'vitest';
import { CheckoutClient, RateLimitError } from 'checkout-partner-sdk';
import { startServer, type RealServer } from '../real-server.js';

// Retry-After is RFC 9110's delay-seconds (digits only) or an HTTP-date; anything else is ignored
// (issue 16, item 15: `Retry-After: 1e9` was read as 10^9 seconds and failed the call at once).

let server: RealServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const retryAfter = (value: string) =>
  new RateLimitError('429', { status: 429, headers: new Headers({ 'retry-after': value }) }).retryAfterMs;

describe('Retry-After parsing', () => {
  it.each([
    '1e9',
    '1E3',
    '-1',
    '+5',
    '1.5',
    '0x10',
    '5 s',
    'soon',
    '2026-01-01',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Mon, 31 Feb 2099 00:00:00 GMT',
    'Sun, 06 Foo 1994 08:49:37 GMT',
  ])('ignores %j', (value) => {
    expect(retryAfter(value)).toBeUndefined();
  });

  it.each([
    ['0', 0],
    ['5', 5_000],
    ['007', 7_000],
    ['Sun, 06 Nov 1994 08:49:37 GMT', 0],
    ['Sunday, 06-Nov-94 08:49:37 GMT', 0],
    ['Sun Nov  6 08:49:37 1994', 0],
  ])('reads %j as %d ms', (value, ms) => {
    expect(retryAfter(value)).toBe(ms);
  });

  it('reads an IMF-fixdate in the future as the wait until then', () => {
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 30_000);
    const ms = retryAfter(at.toUTCString());
    expect(ms).toBeGreaterThan(29_000);
    expect(ms).toBeLessThanOrEqual(31_000);
  });

  it('a 429 with Retry-After: 1e9 is retried on the client backoff, not failed at once', async () => {
    let orders = 0;
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      orders += 1;
      if (orders === 1) res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1e9' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"externalId":"o-1"}');
      return true;
    });
    const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-1', partnerSecret: 's' });
    const { data, response } = await client.withResponse().getOrderByExternalId('o-1');
    expect(data.externalId).toBe('o-1');
    expect(response.attempts).toBe(2);
  });

  it('a 429 that keeps answering Retry-After: 1e9 ends in a RateLimitError without retryAfterMs', async () => {
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1e9' }).end('{}');
      return true;
    });
    const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-1', partnerSecret: 's', maxRetries: 1 });
    const error = await client.getOrderByExternalId('o-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBeUndefined();
    expect((error as RateLimitError).attempts).toBe(2);
  });
});
