import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { RedisTokenStore } from 'checkout-partner-sdk/redis';
import type { StoredToken } from 'checkout-partner-sdk/stores';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { tokenStoreKey } from '../helpers/token-key.js';
import { flavours, type Connection } from './clients.js';

const ORIGIN = 'https://checkout.test';
const TOKEN_URL = `${ORIGIN}/api/v1/partner-api/auth/token`;
/** The key CheckoutClient asks its store for. */
const CLIENT_KEY = tokenStoreKey(`${ORIGIN}/api/v1/partner-api`, 'partner-1', 's-1');

let exchanges = 0;
const msw = setupServer(
  http.post(TOKEN_URL, () => {
    exchanges += 1;
    return HttpResponse.json({ accessToken: `tok-${exchanges}`, tokenType: 'Bearer', expiresIn: 3600 });
  }),
);

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
  msw.listen({ onUnhandledFrame: 'error' });
});
afterEach(() => {
  exchanges = 0;
});
afterAll(async () => {
  msw.close();
  await server?.stop();
});

let prefixes = 0;
const uniquePrefix = () => `tok-test-${++prefixes}:`;

describe.each(flavours)('RedisTokenStore with $name', (flavour) => {
  let one: Connection;
  let two: Connection;
  beforeAll(async () => {
    one = await flavour.connect(server.url);
    two = await flavour.connect(server.url);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it('returns what was set, from another connection too', async () => {
    const prefix = uniquePrefix();
    const token: StoredToken = { accessToken: 'tok-a', expiresAt: Date.now() + 60_000 };
    await new RedisTokenStore({ client: one.client, prefix }).set('k', token);
    const read = await new RedisTokenStore({ client: two.client, prefix }).get('k');
    expect(read?.accessToken).toBe('tok-a');
    // the deadline is read back as Redis's remaining time on the reader's clock: equal to what was
    // set but for the few milliseconds the SET took to arrive (PX counts from its arrival)
    expect(Math.abs(read!.expiresAt - token.expiresAt)).toBeLessThan(1_000);
    await expect(new RedisTokenStore({ client: two.client, prefix }).get('other')).resolves.toBeUndefined();
    await expect(new RedisTokenStore({ client: two.client, prefix: uniquePrefix() }).get('k')).resolves.toBeUndefined();
  });

  it('stores the token under prefix + key with a PX expiry at expiresAt', async () => {
    const prefix = uniquePrefix();
    await new RedisTokenStore({ client: one.client, prefix }).set('k', { accessToken: 'tok-b', expiresAt: Date.now() + 30_000 });
    expect(await one.raw('KEYS', `${prefix}*`)).toEqual([`${prefix}k`]);
    const pttl = Number(await one.raw('PTTL', `${prefix}k`));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(30_000);
  });

  it('drops the token when it expires, and never stores one already expired', async () => {
    const prefix = uniquePrefix();
    const store = new RedisTokenStore({ client: one.client, prefix });
    await store.set('short', { accessToken: 'tok-c', expiresAt: Date.now() + 100 });
    expect(await eventually(async () => (await store.get('short')) === undefined)).toBe(true);
    expect(await one.raw('EXISTS', `${prefix}short`)).toBe(0);

    await store.set('old', { accessToken: 'tok-d', expiresAt: Date.now() - 1 });
    expect(await one.raw('EXISTS', `${prefix}old`)).toBe(0);
    await expect(store.get('old')).resolves.toBeUndefined();
  });

  it('reads a value that is not a stored token as no token', async () => {
    const prefix = uniquePrefix();
    const store = new RedisTokenStore({ client: one.client, prefix });
    const malformed = [
      'not json',
      '"tok"',
      'null',
      '{}',
      '{"accessToken":"","expiresAt":1}',
      '{"accessToken":42,"expiresAt":1}',
      '{"accessToken":"tok","expiresAt":"soon"}',
      '{"accessToken":"tok"}',
    ];
    for (const [i, value] of malformed.entries()) {
      await one.raw('SET', `${prefix}m-${i}`, value);
      await expect(store.get(`m-${i}`), value).resolves.toBeUndefined();
    }
  });

  it('rejects bad arguments with a TypeError', async () => {
    const store = new RedisTokenStore({ client: one.client });
    await expect(store.get('')).rejects.toThrow(TypeError);
    await expect(store.set('k', { accessToken: '', expiresAt: Date.now() + 1000 })).rejects.toThrow(TypeError);
    await expect(store.set('k', { accessToken: 't', expiresAt: Number.NaN })).rejects.toThrow(TypeError);
    await expect(store.set('k', null as never)).rejects.toThrow(TypeError);
    expect(() => new RedisTokenStore({ client: {} as never })).toThrow(/ioredis.*node-redis/);
    expect(() => new RedisTokenStore({ client: one.client, prefix: null as never })).toThrow(/prefix/);
  });

  it('lets two CheckoutClients sharing one RedisTokenStore make one token exchange in total', async () => {
    const prefix = uniquePrefix();
    const tokenStore = new RedisTokenStore({ client: one.client, prefix });
    const newClient = () => new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'partner-1', partnerSecret: 's-1', tokenStore });
    await expect(newClient().getAccessToken()).resolves.toBe('tok-1');
    await expect(newClient().getAccessToken()).resolves.toBe('tok-1');
    expect(exchanges).toBe(1);
    const stored = await tokenStore.get(CLIENT_KEY);
    expect(stored?.accessToken).toBe('tok-1');
    // 3600 s minus the default 30 s skew
    const pttl = Number(await one.raw('PTTL', `${prefix}${CLIENT_KEY}`));
    expect(pttl).toBeGreaterThan(3_560_000);
    expect(pttl).toBeLessThanOrEqual(3_570_000);
  });

  it('lets clients in separate processes (separate connections) share the token', async () => {
    const prefix = uniquePrefix();
    const newClient = (connection: Connection) =>
      new CheckoutClient({
        baseUrl: ORIGIN,
        partnerId: 'partner-1',
        partnerSecret: 's-1',
        tokenStore: new RedisTokenStore({ client: connection.client, prefix }),
      });
    const [a, b] = [newClient(one), newClient(two)];
    await expect(a.getAccessToken()).resolves.toBe('tok-1');
    await expect(b.getAccessToken()).resolves.toBe('tok-1');
    expect(exchanges).toBe(1);
    // a malformed value in Redis makes the next client mint and store a fresh token
    await one.raw('SET', `${prefix}${CLIENT_KEY}`, '{"garbage":true}');
    await expect(newClient(two).getAccessToken()).resolves.toBe('tok-2');
    await expect(newClient(one).getAccessToken()).resolves.toBe('tok-2');
    expect(exchanges).toBe(2);
  });
});
