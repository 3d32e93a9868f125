import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, CheckoutClient } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { reached } from '../helpers/fake-time.js';

// Issue 32, "Rotation without a restart": a partnerSecret function is read at the next exchange,
// but after a 401 from POST /auth/token the client waits up to ~30 s before exchanging again.
// `client.resetCredentials()` ends that back-off and forgets the token, so once both sides hold the
// new secret no call fails. The clock is faked (Date and performance.now) and never moved here
// unless said: every call below happens inside the back-off window.

const ORIGIN = 'https://checkout.test';
afterEach(() => vi.useRealTimers());

/** The fake service with partner p-1, and a client whose partnerSecret function reads `secrets.current`. */
function rotating(fetchWrap?: (fetch: typeof globalThis.fetch) => typeof globalThis.fetch) {
  const fake = createFakeCheckout({ partners: [{ partnerId: 'p-1', partnerSecret: 'secret-old' }] });
  fake.setOrder({ externalId: 'o-1', settlement: { status: 'Pending', tradeId: 't-1' } });
  const secrets = { current: 'secret-old', reads: 0 };
  const client = new CheckoutClient({
    baseUrl: ORIGIN,
    partnerId: 'p-1',
    partnerSecret: () => {
      secrets.reads += 1;
      return secrets.current;
    },
    fetch: fetchWrap === undefined ? fake.fetch : fetchWrap(fake.fetch),
  });
  return { fake, client, secrets };
}

/** The service refuses the old secret until the back-off window is long (refusals at ~0, 1, 3, 7 s). */
async function refusedForAWhile(client: CheckoutClient): Promise<void> {
  for (let i = 0; i < 4; i += 1) {
    await expect(client.getOrderByExternalId('o-1')).rejects.toBeInstanceOf(AuthenticationError);
    vi.advanceTimersByTime(4_000);
  }
  await expect(client.getOrderByExternalId('o-1')).rejects.toBeInstanceOf(AuthenticationError);
}

describe('client.resetCredentials()', () => {
  it('after the service switched first: no failed call once the client holds the new secret too', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const { fake, client, secrets } = rotating();
    await expect(client.getOrderByExternalId('o-1')).resolves.toMatchObject({ externalId: 'o-1' });

    fake.updatePartner('p-1', { partnerSecret: 'secret-new' });
    fake.revokeTokens(); // the old secret's tokens are refused with it
    await refusedForAWhile(client);

    secrets.current = 'secret-new'; // both sides agree from here on
    const exchangesBefore = fake.stats.tokenExchanges;
    client.resetCredentials();
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => client.getOrderByExternalId('o-1')));
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(fake.stats.tokenExchanges).toBe(exchangesBefore + 1); // one exchange for the 20 calls
  });

  it('without it, the same calls keep failing until the back-off window ends (what it fixes)', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const { fake, client, secrets } = rotating();
    fake.updatePartner('p-1', { partnerSecret: 'secret-new' });
    await refusedForAWhile(client);
    secrets.current = 'secret-new';
    const reads = secrets.reads;
    await expect(client.getOrderByExternalId('o-1')).rejects.toBeInstanceOf(AuthenticationError);
    expect(secrets.reads).toBe(reads); // not even asked: the refusal stands for its window
    vi.advanceTimersByTime(30_000);
    await expect(client.getOrderByExternalId('o-1')).resolves.toMatchObject({ externalId: 'o-1' });
  });

  it('forgets the cached token: the next call exchanges with the secret as it is now', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const { fake, client, secrets } = rotating();
    const before = await client.getAccessToken();
    expect(client.tokenExpiresAt).toEqual(expect.any(Number));
    fake.updatePartner('p-1', { partnerSecret: 'secret-new' });
    secrets.current = 'secret-new';
    client.resetCredentials();
    expect(client.tokenExpiresAt).toBeUndefined();
    const after = await client.getAccessToken();
    expect(after).not.toBe(before);
    expect(fake.requests.filter((request) => request.path.endsWith('/auth/token'))).toHaveLength(2);
  });

  it('an exchange with the old secret still in flight is left to its callers; its refusal does not start a new back-off', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let holdNext = true;
    const { fake, client, secrets } = rotating((fetch) => async (input, init) => {
      const request = new Request(input, init);
      if (holdNext && request.url.endsWith('/auth/token')) {
        holdNext = false;
        await gate;
      }
      return fetch(request);
    });
    fake.updatePartner('p-1', { partnerSecret: 'secret-new' });
    const old = client.getAccessToken(); // exchanges with secret-old, held at the gate
    await reached(() => secrets.reads === 1, 'the old secret read');
    secrets.current = 'secret-new';
    client.resetCredentials();
    await expect(client.getAccessToken()).resolves.toEqual(expect.any(String)); // a new exchange, not the held one
    release();
    await expect(old).rejects.toBeInstanceOf(AuthenticationError);
    // the old refusal arrived after the reset and started no back-off: a re-mint now goes through
    fake.revokeTokens();
    await expect(client.getOrderByExternalId('o-1')).resolves.toMatchObject({ externalId: 'o-1' });
  });
});
