import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, CheckoutClient, type CheckoutClientOptions } from 'checkout-partner-sdk';
import { RedisTokenStore } from 'checkout-partner-sdk/redis';
import type { StoredToken, TokenStore } from 'checkout-partner-sdk/stores';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tokenStoreKey } from '../helpers/token-key.js';

type PartnerSecret = CheckoutClientOptions['partnerSecret'] & {};

// Issue 16, item 1: a shared token store keyed by base URL and partner id only handed a partner's
// token to a client with the right (public) id and a wrong secret. The key now carries a
// fingerprint of the secret: a client with another secret exchanges for itself, and fails.

const ORIGIN = 'https://checkout.test';
const API = `${ORIGIN}/api/v1/partner-api`;
const PARTNER_ID = 'partner-1';
const RIGHT = 'the-right-secret-0001';
const WRONG = 'a-wrong-secret-0002';

const state = { exchanges: [] as string[], issued: new Set<string>(), orderReads: 0 };
const msw = setupServer(
  http.post(`${API}/auth/token`, ({ request }) => {
    const secret = request.headers.get('x-partner-secret') ?? '';
    state.exchanges.push(secret);
    if (request.headers.get('x-partner-id') !== PARTNER_ID || secret !== RIGHT) {
      return HttpResponse.json({ message: 'invalid credentials' }, { status: 401 });
    }
    const token = `tok-${state.exchanges.length}`;
    state.issued.add(token);
    return HttpResponse.json({ accessToken: token, tokenType: 'Bearer', expiresIn: 3600 });
  }),
  http.get(`${API}/orders/by-external-id/:id`, ({ request, params }) => {
    const token = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
    if (!state.issued.has(token)) return new HttpResponse(null, { status: 401 });
    state.orderReads += 1;
    return HttpResponse.json({ externalId: String(params.id), settlement: { status: 'Settled' } });
  }),
);
beforeAll(() => msw.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  state.exchanges = [];
  state.issued.clear();
  state.orderReads = 0;
});
afterAll(() => msw.close());

/** The in-memory shared store of the README's "write your own store" shape. */
class MapStore implements TokenStore {
  readonly map = new Map<string, StoredToken>();
  get(key: string) {
    return this.map.get(key);
  }
  set(key: string, token: StoredToken) {
    this.map.set(key, token);
  }
}

const newClient = (partnerSecret: PartnerSecret, tokenStore: TokenStore) =>
  new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret, tokenStore });

/** Until the write behind the exchange reached the store (bounded). */
async function stored(store: TokenStore, key: string): Promise<StoredToken | undefined> {
  for (let i = 0; i < 100; i++) {
    const token = await store.get(key);
    if (token !== undefined) return token;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
}

function sharedStoreCases(name: string, makeStore: () => TokenStore) {
  describe(`a shared ${name}`, () => {
    it('never hands the token to a client with the right partner id and a wrong secret', async () => {
      const store = makeStore();
      await expect(newClient(RIGHT, store).getOrderByExternalId('o-1')).resolves.toMatchObject({ externalId: 'o-1' });
      expect(await stored(store, tokenStoreKey(API, PARTNER_ID, RIGHT))).toMatchObject({ accessToken: 'tok-1' });

      const error = await newClient(WRONG, store)
        .getOrderByExternalId('o-1')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(state.exchanges).toEqual([RIGHT, WRONG]); // it exchanged for itself, and was refused
      expect(state.orderReads).toBe(1); // only the right client's read
    });

    it('a partnerSecret function shares the token of the secret it returns, and only that one', async () => {
      const store = makeStore();
      await newClient(RIGHT, store).getAccessToken();
      await stored(store, tokenStoreKey(API, PARTNER_ID, RIGHT));
      await expect(newClient(async () => RIGHT, store).getOrderByExternalId('o-2')).resolves.toMatchObject({ externalId: 'o-2' });
      expect(state.exchanges).toEqual([RIGHT]); // the function's client found the stored token
      // a rotated-out secret still returned by a secret manager: its own exchange, refused
      await expect(newClient(() => WRONG, store).getOrderByExternalId('o-3')).rejects.toBeInstanceOf(AuthenticationError);
      expect(state.exchanges).toEqual([RIGHT, WRONG]);
    });

    it('50 concurrent cold callers with a partnerSecret function: one secret call, one exchange', async () => {
      const store = makeStore();
      let secretCalls = 0;
      const client = newClient(async () => {
        secretCalls += 1;
        return RIGHT;
      }, store);
      const tokens = await Promise.all(Array.from({ length: 50 }, () => client.getAccessToken()));
      expect(new Set(tokens)).toEqual(new Set(['tok-1']));
      expect(secretCalls).toBe(1);
      expect(state.exchanges).toEqual([RIGHT]);
    });

    it('keys the token by base URL, partner id and an HMAC fingerprint of the secret, never the secret', async () => {
      const store = makeStore();
      await newClient(RIGHT, store).getAccessToken();
      const key = tokenStoreKey(API, PARTNER_ID, RIGHT);
      expect(await stored(store, key)).toMatchObject({ accessToken: 'tok-1' });
      expect(key).toMatch(new RegExp(`^checkout-partner-sdk:token:${API}:${PARTNER_ID}:[0-9a-f]{64}$`));
      expect(key).not.toContain(RIGHT);
    });
  });
}

sharedStoreCases('memory store', () => new MapStore());

let redis: RedisServer;
let connection: Redis;
beforeAll(async () => {
  redis = await startRedis();
  connection = new Redis(redis.url, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  connection?.disconnect();
  await redis?.stop();
});
let prefixes = 0;
sharedStoreCases(
  'RedisTokenStore (real redis-server)',
  () => new RedisTokenStore({ client: connection, prefix: `key-test-${++prefixes}:` }),
);
