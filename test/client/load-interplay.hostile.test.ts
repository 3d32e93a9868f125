import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENT_TIMERS, reached, settled } from '../helpers/fake-time.js';
import { CheckoutClient, RateLimitError, TimeoutError } from 'checkout-partner-sdk';

// The load control (rateLimit's gate, Retry-After pause, retry budget) together with the rest of
// the client, as a broken service, proxy or custom fetch would drive it.
// Hand-rolled fetch functions, not the shipped fake: fetches that never settle or ignore the abort.

const TOKEN = JSON.stringify({ accessToken: 'tok-1', tokenType: 'Bearer', expiresIn: 3600 });
const json = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });
const urlOf = (input: RequestInfo | URL) => (input instanceof Request ? input.url : String(input));

afterEach(() => vi.useRealTimers());

describe('the gate and a fetch that ignores abort', () => {
  it('an attempt cut by its timeout gives its concurrency slot back even when the custom fetch never settles', async () => {
    let business = 0;
    const fetch = async (input: RequestInfo | URL) => {
      if (urlOf(input).endsWith('/auth/token')) return json(TOKEN);
      business += 1;
      // the first two business requests hang and ignore the signal (a wrapper that drops it)
      if (business <= 2) return new Promise<Response>(() => undefined);
      return json('{"externalId":"o-1"}');
    };
    const client = new CheckoutClient({
      baseUrl: 'https://checkout.test',
      partnerId: 'p-1',
      partnerSecret: 's',
      fetch,
      rateLimit: { concurrency: 2 },
      timeoutMs: 5_000,
      maxRetries: 0,
    });
    // the token and ky's first-request import first: the two 150 ms calls below must reach fetch, not spend it there
    await client.getAccessToken();
    vi.useFakeTimers(CLIENT_TIMERS);
    const cut = () => client.getOrderByExternalId('o-1', { timeoutMs: 150 }).catch((e: unknown) => e);
    const cuts = Promise.all([cut(), cut()]);
    await reached(() => business === 2, 'both hung fetches called');
    await vi.advanceTimersByTimeAsync(150);
    const hung = await settled(cuts, 'the calls did not end at their timeoutMs');
    for (const error of hung) expect(error).toBeInstanceOf(TimeoutError);
    // both slots were held by the hung fetches: the next call still gets a turn (a moment after the aborts)
    const next = client.getOrderByExternalId('o-1');
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(settled(next, 'the next call got no turn')).resolves.toMatchObject({ externalId: 'o-1' });
    expect(business).toBe(3);
  });
});

describe('log entries and a service that echoes credentials', () => {
  it('never carry the secret or the token a service put in x-request-id, as sent or encoded', async () => {
    const secret = 'partner/secret value-987';
    const token = 'tok-ABCDEFGH-1';
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (urlOf(input).endsWith('/auth/token')) {
        // the secret as sent and percent-encoded
        const echo = `${request.headers.get('x-partner-secret')}|${encodeURIComponent(secret)}`;
        return json(JSON.stringify({ accessToken: token, tokenType: 'Bearer', expiresIn: 3600 }), 200, { 'x-request-id': echo });
      }
      return json('{}', 503, { 'x-request-id': `${request.headers.get('authorization')}` });
    };
    const entries: unknown[] = [];
    const client = new CheckoutClient({
      baseUrl: 'https://checkout.test',
      partnerId: 'p-1',
      partnerSecret: secret,
      fetch,
      maxRetries: 0,
      logger: (entry) => entries.push(entry),
    });
    await expect(client.getMe()).rejects.toThrow();
    const logged = JSON.stringify(entries);
    expect(entries.filter((entry) => (entry as { requestId?: string }).requestId !== undefined)).toHaveLength(3);
    expect(logged).not.toContain(secret);
    expect(logged).not.toContain(encodeURIComponent(secret));
    expect(logged).not.toContain(token);
    expect(logged).toContain('Bearer [redacted]');
    // redacted exactly, by the full redactor (imported for these ids), not replaced whole
    const exchange = entries.find((entry) => (entry as { event?: string }).event === 'client.exchange') as { requestId?: string };
    expect(exchange.requestId).toBe('[redacted]|[redacted]');
  });
});

describe('a very slow pace', () => {
  it("a requestsPerSecond whose spacing exceeds a timer's range waits quietly (no timer firing every millisecond)", async () => {
    let business = 0;
    const fetch = async (input: RequestInfo | URL) => {
      if (urlOf(input).endsWith('/auth/token')) return json(TOKEN);
      business += 1;
      return json('{"externalId":"o-1"}');
    };
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      // one request per 10^7 s: the token exchange takes the only turn for months
      const client = new CheckoutClient({
        baseUrl: 'https://checkout.test',
        partnerId: 'p-1',
        partnerSecret: 's',
        fetch,
        rateLimit: { requestsPerSecond: 1e-7 },
      });
      await client.getAccessToken();
      vi.useFakeTimers(CLIENT_TIMERS);
      // the fake clock takes a delay past a timer's range as 1 ms, without Node's warning: the delays asked are checked
      const timeouts = vi.spyOn(globalThis, 'setTimeout');
      try {
        const pending = expect(client.getOrderByExternalId('o-1', { timeoutMs: 200 })).rejects.toBeInstanceOf(TimeoutError);
        await vi.advanceTimersByTimeAsync(200);
        await settled(pending, 'the call did not end at its timeoutMs');
        await new Promise((resolve) => setImmediate(resolve));
        expect(timeouts.mock.calls.map(([, ms]) => ms ?? 0).filter((ms) => ms > 2 ** 31 - 1)).toEqual([]);
        expect(timeouts.mock.calls.length).toBeLessThan(20);
      } finally {
        timeouts.mockRestore();
      }
    } finally {
      process.off('warning', onWarning);
    }
    expect(business).toBe(0);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });
});

describe('a Retry-After pause and a call that needs a new token', () => {
  it('fails at once with RateLimitError when the pause outlasts its timeoutMs, as a call holding a token does', async () => {
    let exchanges = 0;
    const fetch = async (input: RequestInfo | URL) => {
      if (urlOf(input).endsWith('/auth/token')) {
        exchanges += 1;
        // reused for the shortest window (1 s): the next call after it needs an exchange
        return json(JSON.stringify({ accessToken: `tok-${exchanges}`, tokenType: 'Bearer', expiresIn: 1 }));
      }
      return json('{}', 429, { 'retry-after': '30' });
    };
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const client = new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 's', fetch, maxRetries: 0 });
    // the 429 pauses the whole client for 30 s
    await expect(settled(client.getOrderByExternalId('o-1'), 'the first call waits on a timer')).rejects.toBeInstanceOf(RateLimitError);
    vi.advanceTimersByTime(1_100);
    expect(client.tokenExpiresAt).toBeUndefined();
    // at once: on a clock that stands still, a call waiting out its 2 s (or the pause) never ends
    const error = await settled(
      client.getOrderByExternalId('o-2', { timeoutMs: 2_000 }).catch((e: unknown) => e),
      'the call waits on a timer',
    );
    // not a TimeoutError after waiting out its 2 s for an exchange that could not be sent
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(2_000);
    expect(exchanges).toBe(1);
  }, 10_000);
});

describe('a Retry-After pause and the partnerSecret function', () => {
  it('calls that cannot be sent during the pause do not call the secret manager (one read per call before)', async () => {
    let exchanges = 0;
    let secretReads = 0;
    const fetch = async (input: RequestInfo | URL) => {
      if (urlOf(input).endsWith('/auth/token')) {
        exchanges += 1;
        return json(JSON.stringify({ accessToken: `tok-${exchanges}`, tokenType: 'Bearer', expiresIn: 1 }));
      }
      // 60 s: longer than the client's timeoutMs, so no attempt can wait it out
      return json('{}', 429, { 'retry-after': '60' });
    };
    const partnerSecret = () => {
      secretReads += 1;
      return 's';
    };
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const client = new CheckoutClient({
      baseUrl: 'https://checkout.test',
      partnerId: 'p-1',
      partnerSecret,
      fetch,
      maxRetries: 0,
      timeoutMs: 5_000,
    });
    await expect(settled(client.getOrderByExternalId('o-1'), 'the first call waits on a timer')).rejects.toBeInstanceOf(RateLimitError);
    vi.advanceTimersByTime(1_100); // past the token's 1 s
    for (let i = 0; i < 5; i++) {
      await expect(settled(client.getOrderByExternalId(`o-${i}`), 'a call waits on a timer')).rejects.toBeInstanceOf(RateLimitError);
    }
    expect(secretReads).toBe(1);
    expect(exchanges).toBe(1);
  }, 10_000);
});

describe('a timeout after a wait in the queue', () => {
  /** A service that takes `ms(path)` per order read (for ever when `undefined`), honours the abort, and counts the reads it received. */
  function slowService(ms: (path: string) => number | undefined) {
    const reads: string[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      if (urlOf(input).endsWith('/auth/token')) return json(TOKEN);
      const signal = input instanceof Request ? input.signal : init?.signal;
      const path = new URL(urlOf(input)).pathname.replace('/api/v1/partner-api', '');
      reads.push(path);
      const wait = ms(path);
      await new Promise<void>((resolve, reject) => {
        const timer = wait === undefined ? undefined : setTimeout(resolve, wait);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
      return json(`{"externalId":"${path.split('/').pop()}"}`);
    };
    return { reads, fetch };
  }

  it("a call's first request waits before its attempt: sent after a wait, it has its whole timeoutMs", async () => {
    // o-1 takes 100 ms, o-2 250 ms: o-2 waits 100 ms, then is answered 250 ms after it was sent, within its 300 ms
    const { fetch } = slowService((path) => (path.endsWith('/o-1') ? 100 : 250));
    const client = new CheckoutClient({
      baseUrl: 'https://checkout.test',
      partnerId: 'p-1',
      partnerSecret: 's',
      fetch,
      rateLimit: { concurrency: 1 },
      timeoutMs: 300,
      maxRetries: 0,
    });
    await client.getAccessToken();
    vi.useFakeTimers();
    try {
      const calls = Promise.all([
        client.getOrderByExternalId('o-1').catch((e: unknown) => e),
        client.getOrderByExternalId('o-2').catch((e: unknown) => e),
      ]);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await calls).toEqual([{ externalId: 'o-1' }, { externalId: 'o-2' }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not send a request whose turn comes with less than half of its attempt left: a queue timeout, unsent, not retried', async () => {
    // o-1 takes 200 ms of the 300 ms attempt: o-2's turn comes with ~100 ms left, too little to be worth sending
    const { reads, fetch } = slowService(() => 200);
    const client = new CheckoutClient({
      baseUrl: 'https://checkout.test',
      partnerId: 'p-1',
      partnerSecret: 's',
      fetch,
      rateLimit: { concurrency: 1 },
      timeoutMs: 300,
    });
    await client.getAccessToken();
    vi.useFakeTimers(); // o-1's 200 ms and the 300 ms attempts on one clock, however loaded the machine
    const calls = Promise.all([
      client.getOrderByExternalId('o-1').catch((e: unknown) => e),
      client.getOrderByExternalId('o-2').catch((e: unknown) => e),
    ]);
    await vi.advanceTimersByTimeAsync(1_000);
    const [first, second] = await calls;
    expect(first).toMatchObject({ externalId: 'o-1' });
    expect(second).toBeInstanceOf(TimeoutError);
    expect((second as TimeoutError).message).toMatch(
      /^GET \/orders\/by-external-id\/o-2 timed out waiting for its turn and was not sent: it waited \d+ ms in the client's queue/,
    );
    expect((second as TimeoutError).attempts).toBe(0);
    // never sent, and not retried although GETs are (maxRetries 2 by default)
    expect(reads).toEqual(['/orders/by-external-id/o-1']);
  });

  it("a call's own timeoutMs that runs out in the queue says so", async () => {
    const { reads, fetch } = slowService(() => undefined);
    const client = new CheckoutClient({
      baseUrl: 'https://checkout.test',
      partnerId: 'p-1',
      partnerSecret: 's',
      fetch,
      rateLimit: { concurrency: 1 },
      timeoutMs: 10_000,
    });
    await client.getAccessToken();
    vi.useFakeTimers();
    const hung = client.getOrderByExternalId('o-1', { timeoutMs: 400 }).catch((e: unknown) => e);
    // its own timeoutMs of 100 ms ends long before half of the client's 10 s attempt
    const waiting = client.getOrderByExternalId('o-2', { timeoutMs: 100 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(500);
    const queued = await waiting;
    expect(queued).toBeInstanceOf(TimeoutError);
    expect((queued as TimeoutError).message).toMatch(
      /^GET \/orders\/by-external-id\/o-2 did not complete within its timeoutMs \(100 ms\): it ran out while waiting for its turn in the client's queue/,
    );
    await hung;
    expect(reads).toEqual(['/orders/by-external-id/o-1']);
  });
});
