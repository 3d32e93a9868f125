// A complete vitest file for a webhook receiver: the fake checkout service behind msw, a real
// receiver on 127.0.0.1, and the fake payment provider (deliverEvent).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createEvent, createFakeCheckout, deliverEvent, EventDeliveryError, signEvent } from 'checkout-partner-sdk/testing';
import { createWebhookHandler, type WebhookHandler } from 'checkout-partner-sdk/webhooks';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

const SECRET = 'whsec_test';
const fake = createFakeCheckout({ partners: [{ partnerId: 'p-1', partnerSecret: 's-1' }] });
const checkout = setupServer(...fake.handlers('https://checkout.test'));
// a request nothing answers fails the test: msw 3 reads onUnhandledFrame, msw 2 onUnhandledRequest
// (as a variable, not inline in listen(), it type-checks with either)
const failUnhandled = { onUnhandledFrame: 'error', onUnhandledRequest: 'error' } as const;

// your app's handler (with a status tracker: give it `tracker` and fulfil in onChange instead)
const fulfilled: string[] = [];
function createApp(): WebhookHandler {
  return createWebhookHandler({
    secret: SECRET,
    client: new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 's-1' }),
    resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-${event.tradeId}` : undefined),
    onEvent: ({ order, confirmed }) => {
      if (confirmed && order) fulfilled.push(order.externalId);
    },
  });
}
// a client (and its handler) per test: a client backs off a refused partner secret for up to 30 s
let handler: WebhookHandler;
const receiver = http.createServer((req, res) => handler.node(req, res));
let url = '';

beforeAll(async () => {
  checkout.listen(failUnhandled);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});
beforeEach(() => {
  handler = createApp();
});
afterEach(async () => {
  vi.useRealTimers();
  await handler.drain();
  checkout.resetHandlers();
  fake.reset();
  fulfilled.length = 0;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  checkout.close();
});

describe('webhook receiver', () => {
  it('fulfils a settled order once, however often the provider delivers it', async () => {
    fake.setOrder({ externalId: 'order-t-1', settlement: { status: 'Settled', tradeId: 't-1' } });
    const report = await deliverEvent(url, createEvent('otc.trade.settled', { tradeId: 't-1' }), { secret: SECRET, duplicates: 2 });
    expect(report.deliveries.map((delivery) => delivery.status)).toEqual([200, 200, 200]);
    expect(fulfilled).toEqual(['order-t-1']);
  });

  it('answers 500 while the service refuses the partner credentials, so the provider redelivers', async () => {
    fake.setOrder({ externalId: 'order-t-4', settlement: { status: 'Settled', tradeId: 't-4' } });
    fake.updatePartner('p-1', { partnerSecret: 'rotated' }); // the token exchange now answers 401
    const { body, headers } = await signEvent(createEvent('otc.trade.settled', { tradeId: 't-4' }), SECRET);
    expect((await handler.handle(new Request(url, { method: 'POST', body, headers }))).status).toBe(500);
    expect(fulfilled).toEqual([]);
  });

  it('re-reads an order that is not settled yet, with fake timers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    fake.setOrder({ externalId: 'order-t-2', settlement: { status: 'Pending', tradeId: 't-2' } });
    fake.settleOrder('order-t-2', { afterReads: 1 }); // Settled from the 2nd read, 500 ms later
    const { body, headers } = await signEvent(createEvent('otc.trade.settled', { tradeId: 't-2' }), SECRET);
    const answer = handler.handle(new Request(url, { method: 'POST', body, headers }));
    // with fake timers, vi.waitFor moves the clock by `interval` at each check
    await vi.waitFor(() => expect(fulfilled).toEqual(['order-t-2']), { interval: 50, timeout: 5_000 });
    expect((await answer).status).toBe(200);
  });

  it('refuses a delivery signed with another secret', async () => {
    fake.setOrder({ externalId: 'order-t-3', settlement: { status: 'Settled', tradeId: 't-3' } });
    const delivery = deliverEvent(url, createEvent('otc.trade.settled', { tradeId: 't-3' }), { secret: 'not-the-secret' });
    await expect(delivery).rejects.toThrow(EventDeliveryError);
    await expect(delivery).rejects.toMatchObject({ attempts: [{ status: 401 }] });
    expect(fulfilled).toEqual([]);
  });
});
