import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';

// rateLimit.requestsPerSecond and the adaptive rate are timing logic: fake timers, and a fetch
// that answers at once and notes when each request went out.

afterEach(() => {
  vi.useRealTimers();
});

// the client imports some modules at its first request: done here on the real clock, since a fake clock
// would run ahead while the module loads
beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['performance'] }); // what recordingFetch notes
  const { fetch } = recordingFetch(ok);
  await new CheckoutClient({ baseUrl: 'http://127.0.0.1:9', partnerId: 'p-1', partnerSecret: 's', fetch }).getOrderByExternalId('o-1');
  vi.useRealTimers();
});

const TOKEN = JSON.stringify({ accessToken: 'tok-1', tokenType: 'Bearer', expiresIn: 3600 });

/** A fetch that notes each request's start time and answers with what `answer` says. */
function recordingFetch(answer: (url: string, n: number) => Response) {
  const sent: number[] = [];
  const fetch = async (input: RequestInfo | URL) => {
    const url = input instanceof Request ? input.url : String(input);
    sent.push(performance.now());
    if (url.endsWith('/auth/token')) return new Response(TOKEN, { status: 200, headers: { 'content-type': 'application/json' } });
    return answer(url, sent.length);
  };
  return { sent, fetch };
}

/** The record asked for (the client refuses another one's). */
const ok = (url: string) =>
  new Response(JSON.stringify({ externalId: decodeURIComponent(url.split('/').pop() ?? '') }), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });

/** The most requests that started within any window of `ms`. */
function busiestWindow(times: number[], ms: number): number {
  let most = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while ((times[j] as number) - (times[i] as number) >= ms) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

describe('rateLimit.requestsPerSecond', () => {
  it.each([5, 20, 2.5])('%d per second: no 1 s window ever holds more, and the calls all complete', async (rps) => {
    vi.useFakeTimers();
    const { sent, fetch } = recordingFetch(ok);
    const client = new CheckoutClient({
      baseUrl: 'http://127.0.0.1:9',
      partnerId: 'p-1',
      partnerSecret: 's',
      fetch,
      rateLimit: { requestsPerSecond: rps },
    });
    // as many as the pace lets through within half of the 30 s attempt timeout (a queued call is sent only with half of it left)
    const n = Math.floor(rps) * 14;
    const calls = Promise.all(Array.from({ length: n }, (_, i) => client.getOrderByExternalId(`o-${i}`)));
    await vi.advanceTimersByTimeAsync(22_000);
    await expect(calls).resolves.toHaveLength(n);
    // the reads and the token exchange
    expect(sent).toHaveLength(n + 1);
    expect(busiestWindow(sent, 1000)).toBe(Math.floor(rps));
  });

  it('below 1 per second: one request per 1 / requestsPerSecond seconds', async () => {
    vi.useFakeTimers();
    const { sent, fetch } = recordingFetch(ok);
    const client = new CheckoutClient({
      baseUrl: 'http://127.0.0.1:9',
      partnerId: 'p-1',
      partnerSecret: 's',
      fetch,
      rateLimit: { requestsPerSecond: 0.25 },
    });
    const calls = Promise.all([client.getOrderByExternalId('a'), client.getOrderByExternalId('b')]);
    await vi.advanceTimersByTimeAsync(8_000);
    await expect(calls).resolves.toHaveLength(2);
    expect(busiestWindow(sent, 4000)).toBe(1);
  });
});

describe('429 without Retry-After: the adaptive rate', () => {
  it('a service limited to 20 requests a second: the share of 429s falls under 30% within seconds, and the client keeps working', async () => {
    vi.useFakeTimers();
    // the service's token bucket: 20 a second, 20 at most in store
    let tokens = 20;
    let refilled = performance.now();
    const statuses: { at: number; status: number }[] = [];
    const { fetch } = recordingFetch((url) => {
      const now = performance.now();
      tokens = Math.min(20, tokens + ((now - refilled) / 1000) * 20);
      refilled = now;
      const status = tokens >= 1 ? 200 : 429;
      if (status === 200) tokens -= 1;
      statuses.push({ at: now, status });
      return status === 200
        ? ok(url)
        : new Response('{"message":"slow down"}', { status: 429, headers: { 'content-type': 'application/json' } });
    });
    const client = new CheckoutClient({ baseUrl: 'http://127.0.0.1:9', partnerId: 'p-1', partnerSecret: 's', fetch });
    const start = performance.now();
    let done = 0;
    // 64 callers, each reading again as soon as its call settles, for 20 s of (fake) time
    const caller = async () => {
      while (performance.now() - start < 20_000) {
        await client.getOrderByExternalId('o-1').then(
          () => (done += 1),
          () => undefined,
        );
      }
    };
    const callers = Promise.all(Array.from({ length: 64 }, caller));
    await vi.advanceTimersByTimeAsync(25_000);
    await callers;
    const share = (from: number, to: number) => {
      const window = statuses.filter((s) => s.at - start >= from && s.at - start < to);
      return window.filter((s) => s.status === 429).length / window.length;
    };
    // the first second is a burst of 64 into a bucket of 20; from the next one on, few 429s
    expect(share(0, 1_000)).toBeGreaterThan(0.3);
    expect(share(2_000, 20_000)).toBeLessThan(0.3);
    // and the service's capacity is still used: most of its 20 a second
    expect(statuses.filter((s) => s.status === 200 && s.at - start >= 2_000).length).toBeGreaterThan(18 * 20 * 0.8);
    expect(done).toBeGreaterThan(0);
  });
});
