import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, CheckoutClient, CheckoutError, ServerError } from 'checkout-partner-sdk';
import type { StoredToken, TokenStore } from 'checkout-partner-sdk/stores';
import { CLIENT_TIMERS, reached, settled } from '../helpers/fake-time.js';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, fakeJwt, mockCheckout, order } from './helpers.js';

const { server, state } = mockCheckout();
const newClient = (extra: object = {}) =>
  new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET, ...extra });

afterEach(() => vi.useRealTimers());

/** The client's own timers on a fake clock: a test moves it past a limit and sees the call end there. */
const fakeTimers = () => vi.useFakeTimers(CLIENT_TIMERS);

describe('token exchange', () => {
  it('posts the partner headers, no body and no Authorization', async () => {
    let body = 'unread';
    server.use(
      http.post(`${API}/auth/token`, async ({ request }) => {
        body = await request.text();
        expect(request.headers.get('authorization')).toBeNull();
        expect(request.headers.get('x-partner-id')).toBe(PARTNER_ID);
        expect(request.headers.get('x-partner-secret')).toBe(PARTNER_SECRET);
        return HttpResponse.json({ accessToken: 'tok-a', tokenType: 'Bearer', expiresIn: 60 });
      }),
    );
    await expect(newClient().getAccessToken()).resolves.toBe('tok-a');
    expect(body).toBe('');
  });

  it('shares one exchange among 200 concurrent cold callers', async () => {
    const client = newClient();
    const tokens = await Promise.all(Array.from({ length: 200 }, () => client.getAccessToken()));
    expect(new Set(tokens)).toEqual(new Set(['tok-1']));
    expect(state.exchanges).toBe(1);
  });

  it('shares one exchange among 200 concurrent cold business calls', async () => {
    server.use(http.get(`${API}/orders/by-external-id/:id`, ({ params }) => HttpResponse.json(order(String(params.id)))));
    const client = newClient();
    await Promise.all(Array.from({ length: 200 }, (_, i) => client.getOrderByExternalId(`o-${i}`)));
    expect(state.exchanges).toBe(1);
  });

  it.each([['a missing header'], ['an invalid secret'], ['a disabled partner'], ['a partner without PartnerApiEnabled']])(
    'rejects with AuthenticationError when the exchange answers 401 (%s)',
    async (cause) => {
      server.use(http.post(`${API}/auth/token`, () => HttpResponse.json({ message: cause }, { status: 401 })));
      const error = await newClient()
        .getAccessToken()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ name: 'AuthenticationError', status: 401, body: { message: cause } });
      expect((error as Error).message).toContain('POST /auth/token');
    },
  );

  it('does not retry a 401 from the exchange', async () => {
    server.use(http.post(`${API}/auth/token`, () => new HttpResponse(null, { status: 401 })));
    await expect(newClient().getAccessToken()).rejects.toBeInstanceOf(AuthenticationError);
    expect(state.seen.filter((r) => r.path.endsWith('/auth/token'))).toHaveLength(1);
  });

  it('retries the exchange on 503 and succeeds', async () => {
    state.tokenResponse = (n) =>
      n === 1
        ? new HttpResponse(null, { status: 503, headers: { 'retry-after': '0' } })
        : { accessToken: 'tok-ok', tokenType: 'Bearer', expiresIn: 60 };
    await expect(newClient().getAccessToken()).resolves.toBe('tok-ok');
    expect(state.exchanges).toBe(2);
  });

  it('does not cache a failed exchange', async () => {
    state.tokenResponse = (n) =>
      n === 1 ? new HttpResponse(null, { status: 500 }) : { accessToken: 'tok-2', tokenType: 'Bearer', expiresIn: 60 };
    const client = newClient({ maxRetries: 0 });
    await expect(client.getAccessToken()).rejects.toBeInstanceOf(ServerError);
    await expect(client.getAccessToken()).resolves.toBe('tok-2');
  });

  it('rejects every concurrent waiter when the shared exchange fails, then recovers', async () => {
    // a 503 (not a 401: a refused secret is retried only after a back-off, see refused-secret.test.ts)
    state.tokenResponse = (n) =>
      n === 1 ? new HttpResponse(null, { status: 503 }) : { accessToken: 'tok-2', tokenType: 'Bearer', expiresIn: 60 };
    const client = newClient({ maxRetries: 0 });
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => client.getAccessToken()));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(state.exchanges).toBe(1);
    await expect(client.getAccessToken()).resolves.toBe('tok-2');
  });

  it.each([
    ['not JSON', () => new HttpResponse('<html>', { status: 200 })],
    ['no accessToken', () => HttpResponse.json({ tokenType: 'Bearer', expiresIn: 60 })],
    ['a negative expiresIn', () => HttpResponse.json({ accessToken: 'x', tokenType: 'Bearer', expiresIn: -5 })],
  ])('rejects a malformed token response (%s)', async (_name, respond) => {
    server.use(http.post(`${API}/auth/token`, respond));
    await expect(newClient().getAccessToken()).rejects.toMatchObject({ name: 'ResponseValidationError' });
  });

  it('calls a partnerSecret function at each exchange (rotation without restart)', async () => {
    let current = 'secret-v1';
    const secrets: string[] = [];
    state.tokenResponse = () => {
      secrets.push(state.seen.at(-1)?.headers['x-partner-secret'] ?? '');
      return { accessToken: `tok-${current}`, tokenType: 'Bearer', expiresIn: 60 };
    };
    const client = newClient({ partnerSecret: async () => current, tokenSkewSeconds: 0 });
    vi.useFakeTimers({ toFake: ['Date'] });
    await client.getAccessToken();
    current = 'secret-v2';
    vi.setSystemTime(Date.now() + 61_000);
    await client.getAccessToken();
    expect(secrets).toEqual(['secret-v1', 'secret-v2']);
  });

  it('rejects with a CheckoutError when the partnerSecret function throws, and sends nothing', async () => {
    const client = newClient({
      partnerSecret: () => {
        throw new Error('vault down');
      },
    });
    const error = await client.getAccessToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckoutError);
    expect(state.exchanges).toBe(0);
  });

  it('rejects with a CheckoutError when the partnerSecret function does not settle within timeoutMs, and sends nothing', async () => {
    fakeTimers();
    let asked = 0;
    const client = newClient({ timeoutMs: 200, partnerSecret: () => ((asked += 1), new Promise<string>(() => undefined)) });
    const pending = client.getAccessToken().catch((e: unknown) => e);
    await reached(() => asked === 1, 'the partnerSecret function called');
    await vi.advanceTimersByTimeAsync(200);
    const error = await settled(pending, 'the call did not end at timeoutMs');
    expect(error).toBeInstanceOf(CheckoutError);
    expect((error as Error).message).toMatch(/partnerSecret function did not settle within timeoutMs \(200 ms\)/);
    expect(state.exchanges).toBe(0);
  });

  it('rejects with a TypeError when the partnerSecret function returns no string', async () => {
    await expect(newClient({ partnerSecret: () => '' }).getAccessToken()).rejects.toBeInstanceOf(TypeError);
    expect(state.exchanges).toBe(0);
  });
});

describe('token lifetime', () => {
  it('reuses the token until expiresIn minus the skew, then mints a new one', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const client = newClient(); // skew 30 s
    expect(await client.getAccessToken()).toBe('tok-1');
    vi.setSystemTime(Date.now() + 3_569_000);
    expect(await client.getAccessToken()).toBe('tok-1');
    vi.setSystemTime(Date.now() + 2_000);
    expect(await client.getAccessToken()).toBe('tok-2');
    expect(state.exchanges).toBe(2);
  });

  it('caps the skew at half of a short lifetime', async () => {
    state.expiresIn = 4; // skew 30 s > lifetime: capped at 2 s
    vi.useFakeTimers({ toFake: ['Date'] });
    const client = newClient();
    expect(await client.getAccessToken()).toBe('tok-1');
    vi.setSystemTime(Date.now() + 1_900);
    expect(await client.getAccessToken()).toBe('tok-1');
    vi.setSystemTime(Date.now() + 200);
    expect(await client.getAccessToken()).toBe('tok-2');
  });

  it('never reuses a token past the JWT exp when it is earlier than expiresIn', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Math.floor(Date.now() / 1000);
    state.tokenResponse = (n) => ({ accessToken: n === 1 ? fakeJwt(now + 120) : `opaque-${n}`, tokenType: 'Bearer', expiresIn: 3600 });
    const client = newClient({ tokenSkewSeconds: 10 });
    const first = await client.getAccessToken();
    expect(client.tokenExpiresAt).toBe((now + 110) * 1000);
    vi.setSystemTime((now + 109) * 1000);
    expect(await client.getAccessToken()).toBe(first);
    vi.setSystemTime((now + 111) * 1000);
    expect(await client.getAccessToken()).toBe('opaque-2');
  });

  it('accepts opaque tokens and uses expiresIn alone', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    state.tokenResponse = () => ({ accessToken: 'not.a.jwt', tokenType: 'Bearer', expiresIn: 100 });
    const client = newClient({ tokenSkewSeconds: 0 });
    const start = Date.now();
    await client.getAccessToken();
    expect(client.tokenExpiresAt).toBe(start + 100_000);
  });

  it('reports no expiry before the first exchange', () => {
    expect(newClient().tokenExpiresAt).toBeUndefined();
  });
});

describe('tokenStore', () => {
  class MapStore implements TokenStore {
    readonly map = new Map<string, StoredToken>();
    get(key: string) {
      return this.map.get(key);
    }
    async set(key: string, token: StoredToken) {
      this.map.set(key, token);
    }
  }

  it('shares a token between clients through the store', async () => {
    const store = new MapStore();
    const a = newClient({ tokenStore: store });
    const b = newClient({ tokenStore: store });
    expect(await a.getAccessToken()).toBe('tok-1');
    expect(await b.getAccessToken()).toBe('tok-1');
    expect(state.exchanges).toBe(1);
    const [key] = store.map.keys();
    expect(key).toContain(PARTNER_ID);
    expect(key).not.toContain(PARTNER_SECRET);
  });

  it('ignores an expired stored token', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new MapStore();
    const client = newClient({ tokenStore: store });
    await client.getAccessToken();
    const [key] = store.map.keys();
    store.map.set(key!, { accessToken: 'stale', expiresAt: Date.now() - 1 });
    expect(await newClient({ tokenStore: store }).getAccessToken()).toBe('tok-2');
  });

  it('does not reuse a stored token the service rejected', async () => {
    const store = new MapStore();
    let calls = 0;
    server.use(
      http.get(`${API}/auth/me`, ({ request }) => {
        calls += 1;
        return request.headers.get('authorization') === 'Bearer tok-1'
          ? new HttpResponse(null, { status: 401 })
          : HttpResponse.json({ partnerId: PARTNER_ID });
      }),
    );
    await expect(newClient({ tokenStore: store }).getMe()).resolves.toEqual({ partnerId: PARTNER_ID });
    expect(calls).toBe(2);
    expect([...store.map.values()][0]?.accessToken).toBe('tok-2');
  });

  it('falls back to an exchange when the store fails, and keeps the token itself', async () => {
    const failing: TokenStore = {
      get: async () => {
        throw new Error('store down');
      },
      set: () => {
        throw new Error('store down');
      },
    };
    const client = newClient({ tokenStore: failing });
    expect(await client.getAccessToken()).toBe('tok-1');
    expect(await client.getAccessToken()).toBe('tok-1');
    expect(state.exchanges).toBe(1);
  });

  it.each(['get', 'set', 'lock'] as const)('a store whose %s never settles costs at most lockMs, never the call', async (hung) => {
    const map = new Map<string, StoredToken>();
    let hangs = 0;
    const store: TokenStore = {
      lockMs: 200,
      get: (key) => (hung === 'get' ? never() : map.get(key)),
      set: (key, token) => (hung === 'set' ? never() : void map.set(key, token)),
      lock: async () => (hung === 'lock' ? never() : async () => undefined),
    };
    const never = () => ((hangs += 1), new Promise<never>(() => undefined));
    server.use(http.get(`${API}/orders/by-external-id/:id`, ({ params }) => HttpResponse.json(order(String(params.id)))));
    fakeTimers();
    const client = newClient({ tokenStore: store });
    const pending = client.getOrderByExternalId('o-1');
    let done = false;
    void pending.finally(() => (done = true)).catch(() => undefined);
    await reached(() => hangs === 1 || done, `the store's ${hung} called`);
    await vi.advanceTimersByTimeAsync(200); // lockMs, far below the call's timeoutMs
    expect(await settled(pending, 'the call did not go on at lockMs')).toEqual(order('o-1'));
    expect(state.exchanges).toBe(1);
  });

  it('a wall clock jumping back while another process holds the lock costs at most lockMs', async () => {
    let jumped = false;
    // the monotonic clock, the timers and Date: setSystemTime steps Date alone
    vi.useFakeTimers({ toFake: [...CLIENT_TIMERS.toFake, 'Date'] });
    const store: TokenStore = {
      lockMs: 200,
      get: () => undefined,
      set: () => undefined,
      lock: async () => {
        if (!jumped) vi.setSystemTime(Date.now() - 3_600_000); // e.g. NTP stepping the clock back an hour
        jumped = true;
        return undefined; // held by another process that never stores a token
      },
    };
    const pending = newClient({ tokenStore: store }).getAccessToken();
    await reached(() => jumped, 'the store lock called');
    await vi.advanceTimersByTimeAsync(200); // lockMs, not the hour the wall clock jumped
    expect(await settled(pending, 'the call did not go on at lockMs')).toBe('tok-1');
  });

  it('a store that never settles does not hold a caller past its own timeoutMs or signal', async () => {
    let asked = 0;
    const store: TokenStore = { lockMs: 60_000, get: () => ((asked += 1), new Promise<never>(() => undefined)), set: () => undefined };
    const client = newClient({ tokenStore: store });
    fakeTimers();
    const bounded = expect(client.getAccessToken({ timeoutMs: 100 })).rejects.toMatchObject({ name: 'TimeoutError' });
    await reached(() => asked > 0, 'the store asked');
    await vi.advanceTimersByTimeAsync(100);
    await settled(bounded, 'the call did not end at its timeoutMs');
    // AbortSignal.timeout(100), on the fake clock
    const controller = new AbortController();
    setTimeout(() => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')), 100);
    const signalled = expect(client.getAccessToken({ signal: controller.signal })).rejects.toMatchObject({ name: 'TimeoutError' });
    await vi.advanceTimersByTimeAsync(100);
    await settled(signalled, 'the call did not end at its signal');
    expect(state.exchanges).toBe(0);
  });

  it('reads a store value that is not a token as empty', async () => {
    const store: TokenStore = { get: () => ({ accessToken: 42 }) as never, set: () => undefined };
    expect(await newClient({ tokenStore: store }).getAccessToken()).toBe('tok-1');
    expect(state.exchanges).toBe(1);
  });
});
