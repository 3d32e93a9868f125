import * as api from '@opentelemetry/api';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { createWebhookHandler, signPayload } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOtelApi } from '../../src/telemetry/otel-api.webpack.js';
import { installOtel, parentOf, total, type Otel } from './otel.js';

// `#otel-api` as webpack bundles it for Node (package.json `imports`, condition `webpack`): no import
// of @opentelemetry/api, the API's global registry read instead. Given as `openTelemetryApi`, it must
// make the same spans, parents, trace context and metrics as the API module itself.

const partner = { partnerId: 'p-webpack', partnerSecret: 'webpack-partner-secret-8d1' };
const SECRET = 'whsec_webpack_3a9';
const fake = createFakeCheckout({ partners: [partner] });
// typed as the module it stands for (the SDK checks what it is given at construction)
const registryApi = loadOtelApi() as typeof api;
let otel: Otel | undefined;

afterEach(async () => {
  await otel?.uninstall();
  otel = undefined;
});

/** One client call under an app span and one webhook delivery carrying a remote traceparent, as OpenTelemetry records them. */
async function scenario(openTelemetryApi: typeof api) {
  fake.reset();
  fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
  const installed = (otel = installOtel());
  const client = new CheckoutClient({
    baseUrl: 'http://127.0.0.1:9',
    ...partner,
    fetch: fake.fetch,
    openTelemetryApi,
  });
  const app = installed.tracer.startSpan('app');
  await api.context.with(api.trace.setSpan(api.context.active(), app), () => client.getOrderByExternalId('o-1'));
  app.end();

  const sender = installed.tracer.startSpan('sender');
  const headers: Record<string, string> = {};
  api.propagation.inject(api.trace.setSpan(api.context.active(), sender), headers);
  sender.end();
  const handler = createWebhookHandler({
    secret: SECRET,
    client,
    resolveOrderExternalId: () => 'o-1',
    onEvent: () => undefined,
    logger: false,
  });
  const body = JSON.stringify({ eventId: 'evt-1', type: 'otc.trade.settled', tradeId: 't-1' });
  const response = await handler.handle(
    new Request('http://127.0.0.1/webhooks', {
      method: 'POST',
      headers: { 'x-provider-signature': await signPayload(body, SECRET), ...headers },
      body,
    }),
  );

  const spans = installed.spans();
  const nameOf = (id: string | undefined) =>
    id === app.spanContext().spanId
      ? 'app'
      : id === sender.spanContext().spanId
        ? 'sender'
        : spans.find((s) => s.spanContext().spanId === id)?.name;
  const metrics = await installed.metrics();
  return {
    status: response.status,
    spans: spans
      .filter((span) => span !== (app as unknown) && span !== (sender as unknown))
      .map((span) => ({
        name: span.name,
        kind: span.kind,
        parent: nameOf(parentOf(span)),
        trace:
          span.spanContext().traceId === app.spanContext().traceId
            ? 'app'
            : span.spanContext().traceId === sender.spanContext().traceId
              ? 'sender'
              : 'other',
        error: span.status.code === api.SpanStatusCode.ERROR,
      })),
    // the trace context each request to the service carried: the call's own span, in the app's trace
    traceparents: fake.requests.map((request) => {
      const [, traceId, spanId] = (request.headers['traceparent'] ?? '').split('-');
      return {
        trace: traceId === app.spanContext().traceId ? 'app' : traceId === sender.spanContext().traceId ? 'sender' : traceId,
        span: nameOf(spanId),
      };
    }),
    calls: total(metrics.get('http.client.request.duration')),
    deliveries: total(metrics.get('checkout.webhook.delivery.duration')),
  };
}

describe('the registry view of the API (webpack bundles)', () => {
  it('records what the API module records: spans, kinds, parents, the traceparent sent and received, metrics', async () => {
    const throughRegistry = await scenario(registryApi);
    await otel?.uninstall();
    const throughModule = await scenario(api);
    expect(throughRegistry).toEqual(throughModule);
    // and that is the whole picture, not an empty one
    expect(throughRegistry.status).toBe(200);
    expect(throughRegistry.spans).toEqual(
      expect.arrayContaining([
        { name: 'GET /orders/by-external-id/{externalId}', kind: api.SpanKind.CLIENT, parent: 'app', trace: 'app', error: false },
        { name: 'checkout.webhook.delivery', kind: api.SpanKind.SERVER, parent: 'sender', trace: 'sender', error: false },
      ]),
    );
    expect(throughRegistry.traceparents).toContainEqual({ trace: 'app', span: 'GET /orders/by-external-id/{externalId}' });
    expect(throughRegistry.calls).toBeGreaterThanOrEqual(2);
    expect(throughRegistry.deliveries).toBe(1);
  });

  it('emits nothing and says nothing while nothing is registered, then emits once an app registers', async () => {
    const warn = console.warn;
    const said: unknown[] = [];
    console.warn = (...args: unknown[]) => void said.push(args);
    try {
      fake.reset();
      fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
      const client = new CheckoutClient({
        baseUrl: 'http://127.0.0.1:9',
        ...partner,
        fetch: fake.fetch,
        openTelemetryApi: registryApi,
      });
      await client.getOrderByExternalId('o-1');
      expect(fake.requests.some((request) => request.headers['traceparent'] !== undefined)).toBe(false);
      otel = installOtel();
      await client.getOrderByExternalId('o-1');
      expect(otel.spans().map((span) => span.name)).toEqual(['GET /orders/by-external-id/{externalId}']);
      expect(said).toEqual([]);
    } finally {
      console.warn = warn;
    }
  });

  it('without any registry (no copy of the API ever registered): a provider given still gets its spans', async () => {
    const key = Symbol.for('opentelemetry.js.api.1');
    const global = globalThis as Record<symbol, unknown>;
    const saved = global[key];
    Reflect.deleteProperty(global, key);
    try {
      const own = installOtel({ global: false });
      Reflect.deleteProperty(global, key); // installOtel registered the context manager and the propagator: none here
      const client = new CheckoutClient({
        baseUrl: 'http://127.0.0.1:9',
        ...partner,
        fetch: fake.fetch,
        tracerProvider: own.tracerProvider,
        openTelemetryApi: registryApi,
      });
      fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
      await client.getOrderByExternalId('o-1');
      // no context manager: no active span, so neither has a parent (as with the API's no-op one)
      expect(own.spans().map((span) => [span.name, parentOf(span)])).toEqual([
        ['POST /auth/token', undefined],
        ['GET /orders/by-external-id/{externalId}', undefined],
      ]);
      await own.tracerProvider.shutdown();
    } finally {
      if (saved !== undefined) global[key] = saved;
    }
  });
});
