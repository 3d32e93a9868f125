import * as api from '@opentelemetry/api';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createFakeCheckout, signEvent, createEvent } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installOtel, type Otel } from './otel.js';

// The `openTelemetryApi` option: the API module given by the app, used instead of the one the SDK
// looks for (the bundler-proof path, see docs/observability.md, Bundlers).

const partner = { partnerId: 'p-api', partnerSecret: 'api-partner-secret-5c1e' };
const fake = createFakeCheckout({ partners: [partner] });
let otel: Otel;
beforeEach(() => {
  fake.reset();
  fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
  otel = installOtel();
});
afterEach(() => otel.uninstall());

/** The API module, with its trace API wrapped to count the SDK's use of this copy. */
function countedApi(): { module: typeof api; uses: () => number } {
  let uses = 0;
  const trace = Object.create(api.trace, {
    getTracerProvider: { value: () => (uses++, api.trace.getTracerProvider()) },
  }) as typeof api.trace;
  return { module: { ...api, trace }, uses: () => uses };
}

describe('openTelemetryApi', () => {
  it('is checked: anything but the API module is a TypeError naming the option, on the client, the handler and the tracker', () => {
    const client = new CheckoutClient({ baseUrl: 'https://checkout.test', ...partner, fetch: fake.fetch });
    for (const wrong of [{}, { trace: {} }, 'api', 42, null]) {
      const options = { openTelemetryApi: wrong as never };
      expect(() => new CheckoutClient({ baseUrl: 'https://checkout.test', ...partner, ...options })).toThrow(
        /openTelemetryApi must be the @opentelemetry\/api module/,
      );
      expect(() =>
        createWebhookHandler({ secret: 'whsec', client, resolveOrderExternalId: () => 'o-1', onEvent: () => undefined, ...options }),
      ).toThrow(TypeError);
      expect(() => createStatusTracker({ client, store: new MemoryStatusStore(), onChange: () => undefined, ...options })).toThrow(
        TypeError,
      );
    }
  });

  it("the client's spans go through the module given", async () => {
    const given = countedApi();
    const client = new CheckoutClient({ baseUrl: 'https://checkout.test', ...partner, fetch: fake.fetch, openTelemetryApi: given.module });
    await client.getOrderByExternalId('o-1');
    expect(given.uses()).toBeGreaterThan(0);
    expect(otel.spans().map((span) => span.name)).toContain('GET /orders/by-external-id/{externalId}');
  });

  it("a webhook handler without one uses its client's", async () => {
    const given = countedApi();
    const client = new CheckoutClient({ baseUrl: 'https://checkout.test', ...partner, fetch: fake.fetch, openTelemetryApi: given.module });
    const handler = createWebhookHandler({ secret: 'whsec', client, resolveOrderExternalId: () => 'o-1', onEvent: () => undefined });
    const { body, headers } = await signEvent(createEvent('otc.trade.settled', { tradeId: 't-1' }), 'whsec');
    const before = given.uses();
    expect((await handler.handle(new Request('https://partner.test/webhooks', { method: 'POST', body, headers }))).status).toBe(200);
    expect(given.uses()).toBeGreaterThan(before);
    expect(otel.spans().map((span) => span.name)).toContain('checkout.webhook.delivery');
  });
});
