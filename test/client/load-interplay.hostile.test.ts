import { describe, expect, it } from 'vitest';
import { CheckoutClient, TimeoutError } from 'checkout-partner-sdk';

// The load control (rateLimit's gate, Retry-After pause, retry budget) together with the rest of
// the client, as a broken service, proxy or custom fetch would drive it.

const TOKEN = JSON.stringify({ accessToken: 'tok-1', tokenType: 'Bearer', expiresIn: 3600 });
const json = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });
const urlOf = (input: RequestInfo | URL) => (input instanceof Request ? input.url : String(input));

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
      timeoutMs: 150,
      maxRetries: 0,
    });
    const hung = await Promise.all([client.getOrderByExternalId('o-1').catch((e: unknown) => e), client.getOrderByExternalId('o-1').catch((e: unknown) => e)]);
    for (const error of hung) expect(error).toBeInstanceOf(TimeoutError);
    // both slots were held by the hung fetches: the next call must still get a turn
    await expect(client.getOrderByExternalId('o-1')).resolves.toMatchObject({ externalId: 'o-1' });
    expect(business).toBe(3);
  });
});
