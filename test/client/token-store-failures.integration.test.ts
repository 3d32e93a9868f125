import { once } from 'node:events';
import { setTimeout as realSleep } from 'node:timers/promises';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { RedisTokenStore } from 'checkout-partner-sdk/redis';
import type { StoredToken, TokenStore } from 'checkout-partner-sdk/stores';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

// Issue 16, item 4: a hung or failing token store stalled every call for about 3 × lockMs at each
// refresh (get, lock and set each waited out in turn, waiters released only after set gave up,
// nothing remembered the failure), and tokens handed out that late were past their life (401).
// Now: each get/lock is bounded (1 s at most), waiters get the token when the exchange returns,
// the write happens behind, and a store that failed is skipped for 30 s.

const ORIGIN = 'https://checkout.test';
const API = `${ORIGIN}/api/v1/partner-api`;
const EXCHANGE_MS = 300;

const never = () => new Promise<never>(() => undefined);

/** A store that counts its operations; `mode` says how each behaves. */
function storeThat(mode: { get: 'ok' | 'hang' | 'throw'; lock: 'ok' | 'hang' | 'none'; set: 'ok' | 'hang' | 'throw' }) {
  const map = new Map<string, StoredToken>();
  const ops = { get: 0, lock: 0, set: 0 };
  const store: TokenStore = {
    get(key) {
      ops.get += 1;
      if (mode.get === 'hang') return never();
      if (mode.get === 'throw') throw new Error('store down');
      return map.get(key);
    },
    set(key, token) {
      ops.set += 1;
      if (mode.set === 'hang') return never();
      if (mode.set === 'throw') throw new Error('store down');
      map.set(key, token);
    },
    ...(mode.lock === 'none' ? {} : { lock: async () => (ops.lock++, mode.lock === 'hang' ? never() : async () => undefined) }),
  };
  return { store, ops, map };
}

/** A fetch whose token exchange takes EXCHANGE_MS (of fake time) and whose reads answer at once. */
function serviceFetch(counts: { exchanges: number }, expiresIn = 60): typeof fetch {
  return async (input) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname.endsWith('/auth/token')) {
      counts.exchanges += 1;
      const n = counts.exchanges;
      await new Promise((resolve) => setTimeout(resolve, EXCHANGE_MS));
      return Response.json({ accessToken: `tok-${n}`, tokenType: 'Bearer', expiresIn });
    }
    return Response.json({ externalId: url.pathname.split('/').at(-1), settlement: { status: 'Pending' } });
  };
}

/**
 * Moves the fake clock `ms` forward in 10 ms steps, letting the real event loop turn at each step
 * (Web Crypto's HMAC of the store key completes there), and reports how many of `calls` settled.
 */
async function settledWithin<T>(calls: Promise<T>[], ms: number, started: () => boolean = () => true): Promise<number> {
  let settled = 0;
  for (const call of calls)
    void call.then(
      () => (settled += 1),
      () => (settled += 1),
    );
  // the key's HMAC (Web Crypto) completes on the real clock: let it, before fake time moves
  for (let i = 0; i < 2_000 && !started(); i++) await realSleep(1);
  await advance(ms);
  return settled;
}

async function advance(ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 10) {
    await vi.advanceTimersByTimeAsync(Math.min(10, ms - t));
    await realSleep(1); // node:timers/promises is not faked
  }
}

describe('a token store that hangs or fails (fake clock)', () => {
  // the first request looks for @opentelemetry/api (a dynamic import): on the real clock, so fake time measures calls only
  beforeAll(async () => {
    await new CheckoutClient({
      baseUrl: ORIGIN,
      partnerId: 'p-0',
      partnerSecret: 's-0',
      fetch: serviceFetch({ exchanges: 0 }),
    }).getOrderByExternalId('warm');
  }, 20_000);
  afterEach(() => vi.useRealTimers());
  const fakeClock = () => vi.useFakeTimers({ toFake: ['Date', 'performance', 'setTimeout', 'clearTimeout'] });

  it('get, lock and set all hanging: 20 concurrent calls complete after one bounded store wait and one exchange', async () => {
    fakeClock();
    const counts = { exchanges: 0 };
    const { store, ops } = storeThat({ get: 'hang', lock: 'hang', set: 'hang' });
    // tokens reused 20 s: the refresh below falls inside the 30 s the store is skipped
    const client = new CheckoutClient({
      baseUrl: ORIGIN,
      partnerId: 'p-1',
      partnerSecret: 's-1',
      tokenStore: store,
      fetch: serviceFetch(counts, 20),
      tokenSkewSeconds: 0,
    });
    const calls = Array.from({ length: 20 }, (_, i) => client.getOrderByExternalId(`o-${i}`));
    // the get's bound (1 s), then the exchange; not lockMs (5 s) for each of get, lock and set
    expect(await settledWithin(calls, 1_000 + EXCHANGE_MS + 50, () => ops.get > 0)).toBe(20);
    await expect(Promise.all(calls)).resolves.toHaveLength(20);
    expect(counts.exchanges).toBe(1);
    expect(ops).toEqual({ get: 1, lock: 0, set: 0 }); // the failed get opened the circuit

    // the next refresh (the token expired) costs the exchange alone: the store is skipped
    await vi.advanceTimersByTimeAsync(21_000);
    const later = [client.getOrderByExternalId('o-late')];
    expect(await settledWithin(later, EXCHANGE_MS + 50)).toBe(1);
    expect(counts.exchanges).toBe(2);
    expect(ops.get).toBe(1);
  });

  it('a set that hangs holds no caller: every waiter gets the token when the exchange returns', async () => {
    fakeClock();
    const counts = { exchanges: 0 };
    const { store, ops } = storeThat({ get: 'ok', lock: 'ok', set: 'hang' });
    const client = new CheckoutClient({
      baseUrl: ORIGIN,
      partnerId: 'p-1',
      partnerSecret: 's-1',
      tokenStore: store,
      fetch: serviceFetch(counts),
    });
    const calls = Array.from({ length: 10 }, () => client.getAccessToken());
    expect(await settledWithin(calls, EXCHANGE_MS + 50, () => ops.get > 0)).toBe(10);
    expect(new Set(await Promise.all(calls))).toEqual(new Set(['tok-1']));
    expect(ops).toEqual({ get: 2, lock: 1, set: 1 }); // a get, the lock, a get (the holder may just have stored), the set
  });

  it('a lock that hangs costs one bounded wait, then the store is skipped for 30 s and used again after', async () => {
    fakeClock();
    const counts = { exchanges: 0 };
    const { store, ops } = storeThat({ get: 'ok', lock: 'hang', set: 'ok' });
    const client = () =>
      new CheckoutClient({
        baseUrl: ORIGIN,
        partnerId: 'p-1',
        partnerSecret: 's-1',
        tokenStore: store,
        fetch: serviceFetch(counts),
        tokenSkewSeconds: 30,
      });
    const one = client();
    expect(await settledWithin([one.getAccessToken()], 1_000 + EXCHANGE_MS + 50, () => ops.get > 0)).toBe(1);
    expect(ops).toEqual({ get: 1, lock: 1, set: 0 }); // the write behind was skipped too
    // token lifetime 60 s minus 30 s skew: refreshes at 30 s find the circuit closed again
    await vi.advanceTimersByTimeAsync(30_000);
    expect(await settledWithin([one.getAccessToken()], 1_000 + EXCHANGE_MS + 50)).toBe(1);
    expect(ops.get).toBe(2);
  });

  it('a store that throws is asked once, then skipped for 30 s of refreshes, then asked again', async () => {
    fakeClock();
    const counts = { exchanges: 0 };
    const { store, ops } = storeThat({ get: 'throw', lock: 'ok', set: 'throw' });
    // tokens of 5 s without skew: a refresh every 5 s
    const client = new CheckoutClient({
      baseUrl: ORIGIN,
      partnerId: 'p-1',
      partnerSecret: 's-1',
      tokenStore: store,
      fetch: serviceFetch(counts, 5),
      tokenSkewSeconds: 0,
    });
    for (let i = 0; i < 5; i++) {
      expect(await settledWithin([client.getAccessToken()], EXCHANGE_MS + 50, () => ops.get > 0)).toBe(1);
      await vi.advanceTimersByTimeAsync(5_000);
    }
    expect(counts.exchanges).toBe(5);
    expect(ops).toEqual({ get: 1, lock: 0, set: 0 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await settledWithin([client.getAccessToken()], EXCHANGE_MS + 50)).toBe(1);
    expect(ops.get).toBe(2);
  });
});

/** README "Scaling out with Redis": the ioredis settings that fail fast. */
const README_IOREDIS = { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 1_000 };

describe('a real redis-server paused, resumed and stopped', () => {
  let redis: RedisServer;
  const tokens = new Map<string, number>();
  const seen = { rejected: 0, exchanges: 0 };
  const msw = setupServer(
    http.post(`${API}/auth/token`, () => {
      seen.exchanges += 1;
      const token = `tok-${seen.exchanges}-${Math.random().toString(36).slice(2)}`;
      tokens.set(token, Date.now() + 4_000);
      return HttpResponse.json({ accessToken: token, tokenType: 'Bearer', expiresIn: 4 });
    }),
    http.get(`${API}/orders/by-external-id/:id`, ({ request, params }) => {
      const token = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
      const expires = tokens.get(token);
      if (expires === undefined || Date.now() > expires) {
        seen.rejected += 1;
        return new HttpResponse(null, { status: 401 });
      }
      return HttpResponse.json({ externalId: String(params.id) });
    }),
  );
  beforeAll(async () => {
    redis = await startRedis();
    msw.listen({ onUnhandledFrame: 'error' });
  });
  afterAll(async () => {
    msw.close();
    await redis?.stop();
  });

  const redisPid = async (connection: Redis) => Number(/process_id:(\d+)/.exec(await connection.info('server'))?.[1]);

  it('README ioredis settings: a paused Redis times out after commandTimeout, a stopped one fails at once (no queueing)', async () => {
    const connection = new Redis(redis.url, README_IOREDIS);
    connection.on('error', () => undefined);
    try {
      await once(connection, 'ready');
      const pid = await redisPid(connection);
      process.kill(pid, 'SIGSTOP');
      try {
        await expect(connection.get('k')).rejects.toThrow(/Command timed out/);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await redis.stop();
      await vi.waitFor(() => expect(connection.status).not.toBe('ready'), { timeout: 5_000 });
      // not "Reached the max retries per request limit" after a reconnect wait: refused on the spot
      await expect(connection.get('k')).rejects.toThrow(/enableOfflineQueue/);
    } finally {
      connection.disconnect();
      await redis.restart();
    }
  }, 30_000);

  it('four clients calling through a 4 s pause: every call succeeds, no token past its life, the store skipped meanwhile', async () => {
    const connections = Array.from({ length: 4 }, () => new Redis(redis.url, README_IOREDIS));
    for (const c of connections) c.on('error', () => undefined);
    await Promise.all(connections.map((c) => once(c, 'ready')));
    const pid = await redisPid(connections[0]!);
    const storeOps = { count: 0 };
    const counted = (store: TokenStore): TokenStore => ({
      lockMs: store.lockMs,
      get: (key) => (storeOps.count++, store.get(key)),
      set: (key, token) => (storeOps.count++, store.set(key, token)),
      lock: (key) => (storeOps.count++, store.lock!(key)),
    });
    const clients = connections.map(
      (c) =>
        new CheckoutClient({
          baseUrl: ORIGIN,
          partnerId: 'p-1',
          partnerSecret: 's-1',
          tokenStore: counted(new RedisTokenStore({ client: c, prefix: 'pause:' })),
        }),
    );
    const results: Promise<unknown>[] = [];
    let opsWhilePaused = 0;
    try {
      for (let tick = 0; tick < 140; tick++) {
        if (tick === 20) {
          process.kill(pid, 'SIGSTOP');
          storeOps.count = 0;
        }
        if (tick === 100) {
          opsWhilePaused = storeOps.count;
          process.kill(pid, 'SIGCONT');
        }
        for (const [i, client] of clients.entries()) results.push(client.getOrderByExternalId(`o-${tick}-${i}`));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const settled = await Promise.allSettled(results);
    const failed = settled.filter((r) => r.status === 'rejected');
    expect(failed.map((r) => String(r.reason))).toEqual([]);
    expect(seen.rejected).toBe(0);
    // each client: one get (maybe a lock) before its circuit opened, then nothing for 30 s
    expect(opsWhilePaused).toBeLessThanOrEqual(connections.length * 2);
    for (const c of connections) c.disconnect();
  }, 60_000);
});

// keep the type import used when the file is read alone
export type { StoredToken };
