import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError, CheckoutClient, CheckoutError, QueueFullError, TimeoutError } from 'checkout-partner-sdk';

// The queue of a client's requests waiting for their turn: bounded (rateLimit.maxQueue), and a
// request is sent only with half of its attempt left, so a service that never answers receives
// about concurrency × elapsed / timeoutMs requests whatever the number of callers. Fake timers and
// a fetch that never answers (it honours the abort, as Node's does).

afterEach(() => {
  vi.useRealTimers();
});

const TOKEN = JSON.stringify({ accessToken: 'tok-1', tokenType: 'Bearer', expiresIn: 3600 });

/** A service that answers the token exchange and never answers anything else; counts the reads it received. */
function silentService() {
  const reads: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.endsWith('/auth/token')) return new Response(TOKEN, { status: 200, headers: { 'content-type': 'application/json' } });
    reads.push(url);
    const signal = input instanceof Request ? input.signal : init?.signal;
    return new Promise<Response>((_, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  };
  return { reads, fetch };
}

const base = { baseUrl: 'http://127.0.0.1:9', partnerId: 'p-1', partnerSecret: 's' };

// the first request looks for @opentelemetry/api (a dynamic import): done on the real clock, a fake one would run ahead meanwhile
beforeAll(async () => {
  const { fetch } = silentService();
  await new CheckoutClient({ ...base, fetch }).getAccessToken();
});

describe('rateLimit.maxQueue', () => {
  it('past it, a call fails at once with QueueFullError, unsent; the waiting calls are not disturbed', async () => {
    const { reads, fetch } = silentService();
    const client = new CheckoutClient({ ...base, fetch, timeoutMs: 1_000, maxRetries: 0, rateLimit: { concurrency: 1, maxQueue: 2 } });
    await client.getAccessToken();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    const held = [client.getOrderByExternalId('o-1'), client.getOrderByExternalId('o-2'), client.getOrderByExternalId('o-3')].map((call) =>
      call.catch((e: unknown) => e),
    );
    const refused = await client.getOrderByExternalId('o-4').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QueueFullError);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toBeInstanceOf(CheckoutError);
    const error = refused as QueueFullError;
    expect(error.name).toBe('QueueFullError');
    expect(error.maxQueue).toBe(2);
    expect(error.status).toBeUndefined();
    expect(error.attempts).toBe(0);
    expect(error.message).toMatch(
      /^GET \/orders\/by-external-id\/o-4 was not sent: 2 requests of this client already wait for their turn \(rateLimit\.maxQueue\)/,
    );
    expect(reads).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2_000); // the held calls' 1 s timeoutMs, the queued ones' turns, the slot's hold after an abort
    for (const outcome of await Promise.all(held)) expect(outcome).toBeInstanceOf(TimeoutError);
  });

  it('defaults to 10,000 waiters', async () => {
    const { fetch } = silentService();
    const client = new CheckoutClient({ ...base, fetch, timeoutMs: 60_000, maxRetries: 0, rateLimit: { concurrency: 1 } });
    await client.getAccessToken();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] }); // the slot's hold after the abort, never reached
    const controller = new AbortController();
    const calls = Array.from({ length: 10_001 }, (_, i) =>
      client.getOrderByExternalId(`o-${i}`, { signal: controller.signal }).catch((e: unknown) => e),
    );
    await expect(client.getOrderByExternalId('one-too-many')).rejects.toMatchObject({ name: 'QueueFullError', maxQueue: 10_000 });
    controller.abort();
    await Promise.all(calls);
  });
});

describe("a request's wait for its turn and its timeoutMs", () => {
  it('a first request that waited for its turn has its whole timeoutMs once sent: its timeout does not count the wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    const { reads, fetch } = silentService();
    const client = new CheckoutClient({ ...base, fetch, timeoutMs: 1_000, maxRetries: 0, rateLimit: { concurrency: 1 } });
    await client.getAccessToken();
    // holds the one slot until its own 200 ms timeoutMs (and the slot's hold after an abort)
    const holder = client.getOrderByExternalId('o-1', { timeoutMs: 200 }).catch((e: unknown) => e);
    const waiter = client.getOrderByExternalId('o-2').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await holder).toBeInstanceOf(TimeoutError);
    const error = (await waiter) as TimeoutError;
    expect(reads).toHaveLength(2);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toBe(
      'GET /orders/by-external-id/o-2 timed out: no complete response (headers and body) within timeoutMs (1000 ms)',
    );
  });

  it('a retry whose turn comes with less than half its attempt left fails unsent, and is not retried', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    const { reads, fetch: silent } = silentService();
    // o-1's first request is answered 503 at once; every other read never answers
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/o-1') && !reads.some((read) => read.endsWith('/o-1'))) {
        reads.push(url);
        return new Response('{}', { status: 503, headers: { 'retry-after': '0' } });
      }
      return silent(input, init);
    };
    const client = new CheckoutClient({ ...base, fetch, timeoutMs: 1_000, maxRetries: 2, rateLimit: { concurrency: 1 } });
    await client.getAccessToken();
    const retried = client.getOrderByExternalId('o-1').catch((e: unknown) => e);
    // takes the slot once o-1's first request gave it back, and holds it for its whole attempt
    const holder = client.getOrderByExternalId('o-2', { maxRetries: 0 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5_000);
    const error = (await retried) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toMatch(/^GET \/orders\/by-external-id\/o-1 timed out waiting for its turn and was not sent/);
    expect(reads.filter((read) => read.endsWith('/o-1'))).toHaveLength(1);
    expect(await holder).toBeInstanceOf(TimeoutError);
  });
});

describe('a service that accepts connections and never answers', () => {
  it.each([1, 4])(
    'concurrency %d, 300 ms attempts, 50 looping callers for 3 s: about concurrency × elapsed / timeoutMs requests reach it',
    async (concurrency) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
      const { reads, fetch } = silentService();
      const client = new CheckoutClient({ ...base, fetch, timeoutMs: 300, rateLimit: { concurrency } });
      await client.getAccessToken();
      const start = performance.now();
      const outcomes = new Map<string, number>();
      const caller = async () => {
        while (performance.now() - start < 3_000) {
          const error = (await client.getOrderByExternalId('o-1').catch((e: unknown) => e)) as Error;
          const kind = error.message.includes('was not sent') ? 'unsent' : error.name;
          outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1);
        }
      };
      let done = false;
      const callers = Promise.all(Array.from({ length: 50 }, caller)).then(() => (done = true));
      // the last calls end within their attempts and retries after the 3 s
      for (let step = 0; step < 100 && !done; step += 1) await vi.advanceTimersByTimeAsync(100);
      await callers;
      const bound = (concurrency * 3_000) / 300;
      // each request sent holds its slot at least half an attempt: at most twice the bound, never hundreds
      expect(reads.length).toBeLessThanOrEqual(2 * bound + concurrency);
      expect(reads.length).toBeGreaterThanOrEqual(bound / 2);
      // the other calls failed as queue timeouts, unsent
      expect(outcomes.get('unsent')).toBeGreaterThan(0);
    },
  );
});
