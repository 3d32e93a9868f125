// The Next.js route modules as `next build` and `next start` use them, without Next: importing them
// with no secret in the environment must not throw (the build imports every route module); the
// first request makes the client and handler from the environment, and later requests reuse them.
// test/examples/nextjs.integration.test.ts runs the same files in a real Next.js app.
import { createEvent, createFakeCheckout, signEvent } from 'checkout-partner-sdk/testing';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

const partner = { partnerId: 'p-next', partnerSecret: 's-next' };
const fake = createFakeCheckout({ partners: [partner] });
const msw = setupServer(...fake.handlers('https://checkout.test'));
const SECRETS = ['CHECKOUT_BASE_URL', 'CHECKOUT_PARTNER_ID', 'CHECKOUT_PARTNER_SECRET', 'WEBHOOK_SIGNING_SECRET'];

beforeAll(() => msw.listen({ onUnhandledFrame: 'error' }));
afterAll(() => msw.close());
afterEach(() => {
  vi.unstubAllEnvs();
  fake.reset();
});

const noSecrets = () => {
  for (const name of SECRETS) vi.stubEnv(name, undefined);
};
const secrets = () => {
  vi.stubEnv('CHECKOUT_BASE_URL', 'https://checkout.test');
  vi.stubEnv('CHECKOUT_PARTNER_ID', partner.partnerId);
  vi.stubEnv('CHECKOUT_PARTNER_SECRET', partner.partnerSecret);
  vi.stubEnv('WEBHOOK_SIGNING_SECRET', 'whsec_old,whsec_next');
};

describe('examples/webhooks/nextjs-route.ts', () => {
  it('imports with no secret set; the first request makes the handler, which is then reused', async () => {
    noSecrets();
    const route = await import('../../examples/webhooks/nextjs-route.js');
    const delivery = async (tradeId: string) => {
      const { body, headers } = await signEvent(createEvent('otc.trade.settled', { tradeId }), 'whsec_next');
      return new Request('http://127.0.0.1/api/webhooks', { method: 'POST', body, headers });
    };
    // without the variables, the request fails with the construction error, and is not cached
    await expect(route.POST(await delivery('t-0'))).rejects.toThrow(/missing baseUrl/);
    secrets();
    fake.setOrder({ externalId: 'order-of-t-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
    fake.setOrder({ externalId: 'order-of-t-2', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-2' } });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect((await route.POST(await delivery('t-1'))).status).toBe(200);
    expect((await route.POST(await delivery('t-2'))).status).toBe(200);
    expect(log.mock.calls).toEqual([
      ['settled', 'order-of-t-1'],
      ['settled', 'order-of-t-2'],
    ]);
    // one client: one token for both requests
    expect(fake.stats).toMatchObject({ tokenExchanges: 1, businessCalls: 2 });
  });
});

describe('examples/webhooks/nextjs-order-route.ts', () => {
  it('imports with no secret set; reads an order through a client made on the first request', async () => {
    noSecrets();
    const route = await import('../../examples/webhooks/nextjs-order-route.js');
    const get = (externalId: string) =>
      route.GET(new Request(`http://127.0.0.1/api/orders/${externalId}`), { params: Promise.resolve({ externalId }) });
    await expect(get('o-1')).rejects.toThrow(/missing baseUrl/);
    secrets();
    fake.setOrder({ externalId: 'o-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    const found = await get('o-1');
    expect(found.status).toBe(200);
    expect(await found.json()).toEqual({ externalId: 'o-1', status: 'Pending' });
    expect((await get('o-2')).status).toBe(404);
    expect(fake.stats).toMatchObject({ tokenExchanges: 1, businessCalls: 2 });
  });
});
