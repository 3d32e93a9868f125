import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, CheckoutClient } from 'checkout-partner-sdk';
import { API, ORIGIN, PARTNER_ID, mockCheckout } from './helpers.js';

// Issue 16, item 5: a refused secret (401 from POST /auth/token) made one exchange per call: 2,858
// in 60 s at 50 calls/s, and 685 secret-manager reads in 14 s. Now at most one exchange (and one
// partnerSecret call) per back-off window, from about 1 s doubling to about 30 s; calls in between
// fail at once with the same AuthenticationError. The clock is faked (Date and performance.now).

const { server, state } = mockCheckout();
afterEach(() => vi.useRealTimers());

const refuse = () => server.use(http.post(`${API}/auth/token`, () => {
  state.exchanges += 1;
  return HttpResponse.json({ message: 'invalid partner secret' }, { status: 401 });
}));

/** `calls` calls of `run`, one every `everyMs` of fake time; what each settled with. */
async function paced<T>(calls: number, everyMs: number, run: () => Promise<T>): Promise<PromiseSettledResult<T>[]> {
  const results: PromiseSettledResult<T>[] = [];
  for (let i = 0; i < calls; i++) {
    results.push((await Promise.allSettled([run()]))[0]!);
    vi.advanceTimersByTime(everyMs);
  }
  return results;
}

describe('a refused partner secret', () => {
  it('50 calls over 10 s make a handful of exchanges, each call failing with the same AuthenticationError', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    refuse();
    const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: 'wrong-secret-1' });
    const results = await paced(50, 200, () => client.getAccessToken());
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof AuthenticationError)).toBe(true);
    // windows of about 1, 2, 4 and 8 s (jittered down by at most a fifth): exchanges at 0, ~1, ~3, ~7 s
    expect(state.exchanges).toBeGreaterThanOrEqual(3);
    expect(state.exchanges).toBeLessThanOrEqual(5);
    const first = (results[0] as PromiseRejectedResult).reason as AuthenticationError;
    expect(first.message).toMatch(/partner credentials .*were refused/);
    expect(first).toMatchObject({ status: 401, body: { message: 'invalid partner secret' } });
    // a call inside the window gets the very same error, without a request
    expect((results[1] as PromiseRejectedResult).reason).toBe(first);
  });

  it('business calls fail at once too, with no request sent inside the window', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    refuse();
    const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: 'wrong-secret-1' });
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => client.getMe()));
    for (let i = 0; i < 20; i++) await client.getOrderByExternalId(`o-${i}`).catch(() => undefined);
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof AuthenticationError)).toBe(true);
    expect(state.seen.map((r) => r.path)).toEqual([`/api/v1/partner-api/auth/token`]);
  });

  it('calls a partnerSecret function once per window, and tries a new value at the next window; a success resets it', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    let secret = 'old-secret-1';
    let secretCalls = 0;
    server.use(http.post(`${API}/auth/token`, ({ request }) => {
      state.exchanges += 1;
      return request.headers.get('x-partner-secret') === 'new-secret-2'
        ? HttpResponse.json({ accessToken: `tok-${state.exchanges}`, tokenType: 'Bearer', expiresIn: 1 })
        : HttpResponse.json({ message: 'invalid' }, { status: 401 });
    }));
    const client = new CheckoutClient({
      baseUrl: ORIGIN,
      partnerId: PARTNER_ID,
      partnerSecret: () => {
        secretCalls += 1;
        return secret;
      },
    });
    await paced(20, 100, () => client.getAccessToken()); // 2 s: windows at 0 and ~1 s
    expect(secretCalls).toBeLessThanOrEqual(2);
    expect(state.exchanges).toBe(secretCalls);
    secret = 'new-secret-2'; // rotated in the secret manager
    await expect(client.getAccessToken()).rejects.toBeInstanceOf(AuthenticationError); // still inside the window
    vi.advanceTimersByTime(4_000);
    await expect(client.getAccessToken()).resolves.toMatch(/^tok-/);
    // the token lives 1 s; once it is gone, a refusal starts again from the first window (about 1 s)
    secret = 'old-secret-1';
    vi.advanceTimersByTime(1_500);
    const before = state.exchanges;
    await expect(client.getAccessToken()).rejects.toBeInstanceOf(AuthenticationError);
    vi.advanceTimersByTime(1_000);
    await expect(client.getAccessToken()).rejects.toBeInstanceOf(AuthenticationError);
    expect(state.exchanges).toBe(before + 2);
  });
});
