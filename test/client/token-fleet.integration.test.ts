import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { RedisTokenStore } from 'checkout-partner-sdk/redis';
import type { TokenStore } from 'checkout-partner-sdk/stores';
import { eventually } from '../helpers/eventually.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tokenStoreKey } from '../helpers/token-key.js';
import { flavours, type Connection } from '../redis/clients.js';

// A cold fleet sharing a RedisTokenStore makes one token exchange: a short Redis lock around the
// exchange, the others wait for the stored token (bounded) and fall back to their own exchange
// (issue 11, item 6). A real redis-server; each client has its own connection, as separate
// processes would.

const ORIGIN = 'https://checkout.test';
const CLIENT_KEY = tokenStoreKey(`${ORIGIN}/api/v1/partner-api`, 'partner-1', 's-1');
let exchanges = 0;
let exchangeDelayMs = 150;
const msw = setupServer(
  http.post(`${ORIGIN}/api/v1/partner-api/auth/token`, async () => {
    exchanges += 1;
    const n = exchanges;
    await new Promise((resolve) => setTimeout(resolve, exchangeDelayMs));
    return HttpResponse.json({ accessToken: `tok-${n}`, tokenType: 'Bearer', expiresIn: 3600 });
  }),
);

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
  msw.listen({ onUnhandledFrame: 'error' });
});
afterEach(() => {
  exchanges = 0;
  exchangeDelayMs = 150;
});
afterAll(async () => {
  msw.close();
  await redis?.stop();
});

let prefixes = 0;
const client = (tokenStore: TokenStore) =>
  new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'partner-1', partnerSecret: 's-1', tokenStore });

describe.each(flavours)('a fleet sharing a RedisTokenStore ($name)', (flavour) => {
  const connections: Connection[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 4; i++) connections.push(await flavour.connect(redis.url));
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.close()));
  });

  it('four cold clients on four connections make one exchange and share its token', async () => {
    const prefix = `fleet-${++prefixes}:`;
    const clients = connections.map((c) => client(new RedisTokenStore({ client: c.client, prefix })));
    const tokens = await Promise.all(clients.map((c) => c.getAccessToken()));
    expect(tokens).toEqual(['tok-1', 'tok-1', 'tok-1', 'tok-1']);
    expect(exchanges).toBe(1);
    // the lock is gone once the token is stored: the store write and the release run behind the
    // returned token (token-cache.ts), so on a loaded machine they may finish just after it
    expect(await eventually(async () => (await connections[0]?.raw('EXISTS', `${prefix}${CLIENT_KEY}:lock`)) === 0)).toBe(true);
  });

  it('waits at most lockMs for a holder that never stores a token, then exchanges itself', async () => {
    const prefix = `fleet-${++prefixes}:`;
    await connections[0]?.raw('SET', `${prefix}${CLIENT_KEY}:lock`, 'a-crashed-process', 'PX', '60000');
    const started = performance.now();
    const token = await client(new RedisTokenStore({ client: connections[1]!.client, prefix, lockMs: 400 })).getAccessToken();
    const waited = performance.now() - started;
    expect(token).toBe('tok-1');
    expect(exchanges).toBe(1);
    expect(waited).toBeGreaterThanOrEqual(300);
    expect(waited).toBeLessThan(10_000); // lockMs, not the crashed holder's 60 s: a margin for a loaded machine
  });

  it('takes over when the holder failed and let go of the lock', async () => {
    const prefix = `fleet-${++prefixes}:`;
    const holder = new RedisTokenStore({ client: connections[0]!.client, prefix });
    const release = await holder.lock(CLIENT_KEY);
    expect(release).toBeTypeOf('function');
    const pending = client(new RedisTokenStore({ client: connections[1]!.client, prefix })).getAccessToken();
    setTimeout(() => void release?.(), 100); // the holder's exchange failed: it lets go without a token
    const started = performance.now();
    expect(await pending).toBe('tok-1');
    expect(performance.now() - started).toBeLessThan(3_500); // not the 5 s lockMs
    expect(exchanges).toBe(1);
  });

  it('lock() is exclusive until released or expired, and only its owner releases it', async () => {
    const prefix = `fleet-${++prefixes}:`;
    // 2 s: b's first try must come within it, on a loaded machine too
    const a = new RedisTokenStore({ client: connections[0]!.client, prefix, lockMs: 2_000 });
    const b = new RedisTokenStore({ client: connections[1]!.client, prefix, lockMs: 2_000 });
    const releaseA = await a.lock('k');
    expect(releaseA).toBeTypeOf('function');
    expect(await b.lock('k')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 2_200)); // a's lock expired
    const releaseB = await b.lock('k');
    expect(releaseB).toBeTypeOf('function');
    await releaseA?.(); // too late: b's lock stays
    expect(await a.lock('k')).toBeUndefined();
    await releaseB?.();
    expect(await a.lock('k')).toBeTypeOf('function');
  });
});

describe('RedisTokenStore lockMs', () => {
  it.each([0, -1, Number.NaN, '5s'])('rejects lockMs %j with a TypeError', (lockMs) => {
    expect(() => new RedisTokenStore({ client: { call: async () => null }, lockMs: lockMs as never })).toThrow(/lockMs/);
  });
});
