import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, CheckoutClient } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';

// Issue 16, item 5: a refused secret (401 from POST /auth/token) made one exchange per call: 2,858
// in 60 s at 50 calls/s, and 685 secret-manager reads in 14 s. Now at most one exchange (and one
// partnerSecret call) per back-off window, from about 1 s doubling to about 30 s; calls in between
// fail at once with the same AuthenticationError. The clock is faked (Date and performance.now); the
// service is the shipped fake, whose partner p-1 has the secret 'right-secret'.

const ORIGIN = 'https://checkout.test';
const PARTNER_ID = 'p-1';
afterEach(() => vi.useRealTimers());

/** The fake service (tokens that live `tokenTtlSeconds`) and a client reading it with `partnerSecret`. */
function service(partnerSecret: string | (() => string), tokenTtlSeconds = 3600) {
  const fake = createFakeCheckout({ partners: [{ partnerId: PARTNER_ID, partnerSecret: 'right-secret' }], tokenTtlSeconds });
  const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret, fetch: fake.fetch });
  return { fake, client, exchanges: () => fake.stats.tokenExchanges, paths: () => fake.requests.map((r) => r.path) };
}

/** `calls` calls of `run`, one every `everyMs` of fake time; what each settled with. */
async function paced<T>(calls: number, everyMs: number, run: () => Promise<T>): Promise<PromiseSettledResult<T>[]> {
  const results: PromiseSettledResult<T>[] = [];
  for (let i = 0; i < calls; i++) {
    results.push((await Promise.allSettled([run()]))[0]);
    vi.advanceTimersByTime(everyMs);
  }
  return results;
}

describe('a refused partner secret', () => {
  it('50 calls over 10 s make a handful of exchanges, each call failing with the same AuthenticationError', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const { client, exchanges } = service('wrong-secret-1');
    const results = await paced(50, 200, () => client.getAccessToken());
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof AuthenticationError)).toBe(true);
    // windows of about 1, 2, 4 and 8 s (jittered down by at most a fifth): exchanges at 0, ~1, ~3, ~7 s
    expect(exchanges()).toBeGreaterThanOrEqual(3);
    expect(exchanges()).toBeLessThanOrEqual(5);
    const first = (results[0] as PromiseRejectedResult).reason as AuthenticationError;
    expect(first.message).toMatch(/partner credentials .*were refused/);
    expect(first).toMatchObject({ status: 401, body: { error: 'unauthorized', message: 'Invalid partner credentials' } });
    // a call inside the window gets the very same error, without a request
    expect((results[1] as PromiseRejectedResult).reason).toBe(first);
  });

  it('business calls fail at once too, with no request sent inside the window', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const { client, paths } = service('wrong-secret-1');
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => client.getMe()));
    for (let i = 0; i < 20; i++) await client.getOrderByExternalId(`o-${i}`).catch(() => undefined);
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof AuthenticationError)).toBe(true);
    expect(paths()).toEqual([`/api/v1/partner-api/auth/token`]);
  });

  it('calls a partnerSecret function once per window, and tries a new value at the next window; a success resets it', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    let secret = 'old-secret-1';
    let secretCalls = 0;
    // tokens of the fake live 1 s
    const { client, exchanges } = service(() => {
      secretCalls += 1;
      return secret;
    }, 1);
    await paced(20, 100, () => client.getAccessToken()); // 2 s: windows at 0 and ~1 s
    expect(secretCalls).toBeLessThanOrEqual(2);
    expect(exchanges()).toBe(secretCalls);
    secret = 'right-secret'; // rotated in the secret manager
    await expect(client.getAccessToken()).rejects.toBeInstanceOf(AuthenticationError); // still inside the window
    vi.advanceTimersByTime(4_000);
    await expect(client.getAccessToken()).resolves.toEqual(expect.any(String));
    // the token lives 1 s; once it is gone, a refusal starts again from the first window (about 1 s)
    secret = 'old-secret-1';
    vi.advanceTimersByTime(1_500);
    const before = exchanges();
    await expect(client.getAccessToken()).rejects.toBeInstanceOf(AuthenticationError);
    vi.advanceTimersByTime(1_000);
    await expect(client.getAccessToken()).rejects.toBeInstanceOf(AuthenticationError);
    expect(exchanges()).toBe(before + 2);
  });
});
