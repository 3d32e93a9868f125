import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutClient, CheckoutError } from 'checkout-partner-sdk';
import { RedisEventStore, RedisStoreError, RedisTokenStore } from 'checkout-partner-sdk/redis';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { flavours, type Connection } from './clients.js';

/** What a store call rejected with (fails the test when it resolved). */
async function rejection(call: Promise<unknown>): Promise<RedisStoreError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RedisStoreError);
  expect(error).toBeInstanceOf(CheckoutError);
  expect((error as Error).name).toBe('RedisStoreError');
  return error as RedisStoreError;
}

const TOKEN = 'tok-very-secret-0123456789';

const ORIGIN = 'https://checkout.test';
let exchanges = 0;
/** The service's token endpoint, as CheckoutClient's `fetch` (msw would also intercept the Redis sockets). */
const tokenService: typeof fetch = async (input) => {
  const url = input instanceof Request ? input.url : String(input);
  if (url !== `${ORIGIN}/api/v1/partner-api/auth/token`) return new Response('not found', { status: 404 });
  exchanges += 1;
  return Response.json({ accessToken: `tok-${exchanges}`, tokenType: 'Bearer', expiresIn: 3600 });
};

// Each client library gets a Redis of its own, because these tests stop it.
describe.each(flavours)('Redis stores with $name when Redis fails', (flavour) => {
  let server: RedisServer;
  let failFast: Connection;
  let queueing: Connection;
  beforeAll(async () => {
    server = await startRedis();
    failFast = await flavour.connect(server.url, { failFast: true });
    queueing = await flavour.connect(server.url);
  });
  afterAll(async () => {
    await failFast?.close();
    await queueing?.close();
    await server?.stop();
  });

  it('rejects with RedisStoreError, never showing the token, when Redis refuses a write (OOM)', async () => {
    const tokens = new RedisTokenStore({ client: failFast.client });
    const events = new RedisEventStore({ client: failFast.client, prefix: 'oom:' });
    await failFast.raw('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    await failFast.raw('CONFIG', 'SET', 'maxmemory', '1');
    try {
      const error = await rejection(tokens.set('k', { accessToken: TOKEN, expiresAt: Date.now() + 60_000 }));
      expect(error.operation).toBe('set');
      expect(error.message).toMatch(/OOM/);
      expect(error.cause).toBeInstanceOf(Error);
      for (const shown of [
        error.message,
        String(error.stack),
        JSON.stringify(error),
        inspect(error, { showHidden: true, depth: Infinity }),
      ]) {
        expect(shown).not.toContain(TOKEN);
      }
      const claim = await rejection(events.claim('e-1', 60_000));
      expect(claim.operation).toBe('claim');
      expect(claim.message).toMatch(/OOM/);
    } finally {
      await failFast.raw('CONFIG', 'SET', 'maxmemory', '0');
    }
    await expect(events.claim('e-1', 60_000)).resolves.toMatchObject({ status: 'claimed' });
  });

  it('rejects every operation with RedisStoreError while Redis is down (CheckoutClient exchanges and keeps its token itself), and works again once it is back', async () => {
    const fast = new RedisEventStore({ client: failFast.client, prefix: 'down:' });
    // the queueing client with a short command timeout, for the outage, where nothing answers: it
    // rejects at 300 ms however loaded the machine is. Commands to a live Redis go through `queued`
    // (the default 5 s timeout): on a loaded CI machine a round trip may take longer than 300 ms.
    const slow = new RedisEventStore({ client: queueing.client, prefix: 'down:', commandTimeoutMs: 300 });
    const queued = new RedisEventStore({ client: queueing.client, prefix: 'down:' });
    const tokens = new RedisTokenStore({ client: failFast.client });
    await expect(fast.claim('held', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    const heldToo = await queued.claim('held-too', 60_000);
    if (typeof heldToo !== 'object') throw new Error(`held-too: expected a claim, got ${heldToo}`);

    await server.stop();
    // a fail-fast client: the client's own error is the cause
    expect((await rejection(fast.claim('e-2', 60_000))).operation).toBe('claim');
    const complete = await rejection(fast.complete('held', 'lease:held'));
    expect(complete.operation).toBe('complete');
    expect(complete.cause).toBeInstanceOf(Error);
    expect((await rejection(fast.release('held', 'lease:held'))).operation).toBe('release');
    expect((await rejection(tokens.get('k'))).operation).toBe('get');
    expect((await rejection(tokens.set('k', { accessToken: TOKEN, expiresAt: Date.now() + 60_000 }))).operation).toBe('set');
    // a client that queues commands while reconnecting: commandTimeoutMs bounds the wait
    const timedOut = await rejection(slow.claim('e-3', 60_000));
    expect(timedOut.message).toMatch(/timed out after 300 ms/);
    expect((await rejection(slow.release('held-too', heldToo.lease))).operation).toBe('release');

    // the client does not pass the store's failure on: it exchanges and keeps the token itself
    exchanges = 0;
    const checkout = new CheckoutClient({
      baseUrl: ORIGIN,
      partnerId: 'partner-1',
      partnerSecret: 's-1',
      tokenStore: tokens,
      fetch: tokenService,
    });
    await expect(checkout.getAccessToken()).resolves.toBe('tok-1');
    await expect(checkout.getAccessToken()).resolves.toBe('tok-1');
    expect(exchanges).toBe(1);

    await server.restart();
    const back = await eventually(() =>
      fast.claim('e-4', 60_000).then(
        (r) => typeof r === 'object' && r.status === 'claimed',
        () => false,
      ),
    );
    expect(back).toBe(true);
    // the queueing client reconnects on its own backoff (up to 500 ms after the fail-fast one): its
    // command waits in the queue for that, then runs
    await expect(queued.claim('e-4', 60_000)).resolves.toBe('in-flight');
    // and the 300 ms store answers again too (retried: one round trip may exceed 300 ms under load)
    expect(
      await eventually(() =>
        slow.claim('e-4', 60_000).then(
          (r) => r === 'in-flight',
          () => false,
        ),
      ),
    ).toBe(true);
  });
});
