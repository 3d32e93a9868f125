import { afterEach, describe, expect, it } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { startServer, TOKEN_BODY, type RealServer } from '../real-server.js';

// rateLimit.requestsPerSecond as the service sees it: arrivals counted at a real server on
// 127.0.0.1. A fresh client opens its connections as the first second's requests go out, which
// spreads their arrivals while the next second's go out at once on open connections: paced by send
// times, 37 of them arrived within one second under a pace of 20.

let server: RealServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The most arrivals within any closed window of `ms`. */
function busiestWindow(times: number[], ms: number): number {
  let most = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while ((times[j] as number) - (times[i] as number) > ms) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

describe('rateLimit.requestsPerSecond at the service', () => {
  it('20 per second, a fresh client, a slow token exchange: no second at the service holds more than 20, the exchange included', async () => {
    const arrivals: number[] = [];
    server = await startServer((req, res) => {
      arrivals.push(performance.now());
      if (req.url?.endsWith('/auth/token')) {
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(TOKEN_BODY), 300);
        return true;
      }
      const id = decodeURIComponent(req.url?.split('/').pop() ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ externalId: id }));
      return true;
    });
    const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-1', partnerSecret: 's', rateLimit: { requestsPerSecond: 20 } });
    const records = await Promise.all(Array.from({ length: 50 }, (_, i) => client.getOrderByExternalId(`o-${i}`)));
    expect(records).toHaveLength(50);
    expect(arrivals).toHaveLength(51);
    expect(busiestWindow(arrivals, 1000)).toBeLessThanOrEqual(20);
  }, 20_000);
});
