import { afterEach, describe, expect, it } from 'vitest';
import { CheckoutClient, ServerError } from 'checkout-partner-sdk';
import { startServer, type RealServer } from '../real-server.js';

// The retry budget, against a real server on 127.0.0.1: during an outage the requests per call
// fall towards 1 (about 3 with the budget off), and once the service is back calls retry again.

let server: RealServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A service whose orders answer 503 while `state.down`, else 200; `state.failNext` 503s the next n order reads. */
async function outageService() {
  const state = { down: true, failNext: 0, orders: [] as number[] };
  server = await startServer((req, res) => {
    if (!req.url?.includes('/orders/')) return;
    state.orders.push(performance.now());
    if (state.down || state.failNext > 0) {
      state.failNext = Math.max(0, state.failNext - 1);
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"down"}');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"externalId":"o-1"}');
    }
    return true;
  });
  return state;
}

/**
 * 64 callers reading in a loop (a short pause between calls) until `total` calls have started;
 * calls and requests counted from the `settle`th on. Counted in calls, not in time: the budget is
 * a count, and a loaded machine makes fewer calls a second.
 */
async function callers(client: CheckoutClient, state: { orders: number[] }, total: number, settle: number) {
  let started = 0;
  let seenBefore = 0;
  const attempts: number[] = [];
  const caller = async () => {
    for (let n = started++; n < total; n = started++) {
      if (n === settle) seenBefore = state.orders.length;
      const error = await client.getOrderByExternalId('o-1').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServerError);
      if (n >= settle) attempts.push((error as ServerError).attempts ?? Number.NaN);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await Promise.all(Array.from({ length: 64 }, caller));
  const calls = attempts.length;
  const requests = attempts.reduce((sum, n) => sum + n, 0);
  const seen = state.orders.length - seenBefore;
  return { calls, requestsPerCall: requests / calls, seenPerCall: seen / calls, attempts };
}

describe('retry budget', () => {
  it('a 503 outage: past the first 200 calls, calls fail on their first error (requests per call ≤ 1.3), and errors carry attempts', async () => {
    const state = await outageService();
    const client = new CheckoutClient({ baseUrl: server!.url, partnerId: 'p-1', partnerSecret: 's' });
    // 500 tokens, 5 a retry: dry within the first 100 retries
    const run = await callers(client, state, 500, 200);
    expect(run.calls).toBe(300);
    expect(run.requestsPerCall).toBeLessThanOrEqual(1.3);
    // what the server saw agrees with what the errors say
    expect(run.seenPerCall).toBeLessThanOrEqual(1.3);
    expect(run.attempts.every((n) => n >= 1)).toBe(true);
  }, 20_000);

  it('with retryBudget: false every call makes maxRetries + 1 requests', async () => {
    const state = await outageService();
    const client = new CheckoutClient({ baseUrl: server!.url, partnerId: 'p-1', partnerSecret: 's', retryBudget: false });
    const run = await callers(client, state, 264, 64);
    expect(run.calls).toBe(200);
    expect(run.requestsPerCall).toBe(3);
  }, 20_000);

  it('after the outage, successes refill the budget and a failing call is retried again', async () => {
    const state = await outageService();
    const client = new CheckoutClient({ baseUrl: server!.url, partnerId: 'p-1', partnerSecret: 's' });
    // drain: 200 failing calls, 64 at a time
    for (let round = 0; round < 4; round++) {
      await Promise.all(Array.from({ length: 50 }, () => client.getOrderByExternalId('o-1').catch(() => undefined)));
    }
    state.failNext = 1;
    state.down = false;
    const dry = await client.getOrderByExternalId('o-1').catch((e: unknown) => e);
    expect(dry).toBeInstanceOf(ServerError);
    expect((dry as ServerError).attempts).toBe(1);
    // the service is back: 10 successes put back 10 tokens, 2 retries' worth
    for (let i = 0; i < 10; i++) await client.getOrderByExternalId('o-1');
    state.failNext = 1;
    const { response } = await client.withResponse().getOrderByExternalId('o-1');
    expect(response.attempts).toBe(2);
  }, 20_000);

  it('the re-sent request after a 401 is not a retry: it goes out with the budget dry', async () => {
    let tokens = 0;
    let orders = 0;
    server = await startServer((req, res) => {
      if (req.url?.endsWith('/auth/token')) {
        tokens += 1;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ accessToken: `tok-${tokens}`, tokenType: 'Bearer', expiresIn: 3600 }));
        return true;
      }
      orders += 1;
      if (orders <= 2) res.writeHead(503).end();
      else if (req.headers.authorization === 'Bearer tok-1') res.writeHead(401).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"externalId":"o-1"}');
      return true;
    });
    // a budget of one retry: the first call's retry spends it
    const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-1', partnerSecret: 's', retryBudget: { capacity: 5 } });
    await expect(client.getOrderByExternalId('o-1')).rejects.toMatchObject({ name: 'ServerError', attempts: 2 });
    const { response } = await client.withResponse().getOrderByExternalId('o-1');
    expect(response.attempts).toBe(2);
    expect(tokens).toBe(2);
  });
});
