// Observability: the SDK's spans and metrics through the OpenTelemetry Node SDK, printed to the
// console, against the SDK's fake checkout service on 127.0.0.1. Run: npx tsx examples/observability.ts
// In an application, start the OpenTelemetry SDK first (its own file, loaded with `node --import`),
// with the exporters of your backend (OTLP, Prometheus) instead of the console ones.
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { ConsoleMetricExporter, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { CheckoutClient, NotFoundError } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { createWebhookHandler, MemoryEventStore, signPayload } from 'checkout-partner-sdk/webhooks';

const otel = new NodeSDK({
  serviceName: 'checkout-observability-example',
  resourceDetectors: [],
  spanProcessors: [new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() })],
  // exported at shutdown (below); an application exports every minute or so
  metricReaders: [new PeriodicExportingMetricReader({ exporter: new ConsoleMetricExporter(), exportIntervalMillis: 3_600_000 })],
});
otel.start(); // registers the global tracer and meter providers, context manager and W3C propagator

const partner = { partnerId: 'observability', partnerSecret: crypto.randomUUID() };
const fake = createFakeCheckout({ partners: [partner] });
fake.setOrder({ externalId: 'order-42', currency: 'USDT', settlement: { status: 'Settled', tradeId: 'trade-7' } });
const server = await fake.listen();

// no telemetry option: the client, and the handler through it, use the global providers
const client = new CheckoutClient({ baseUrl: server.url, ...partner });
const webhookSecret = 'whsec_observability_example';
const handler = createWebhookHandler({
  secret: webhookSecret,
  client,
  store: new MemoryEventStore(),
  resolveOrderExternalId: (event) => (event.tradeId === 'trade-7' ? 'order-42' : undefined),
  onEvent: ({ event, confirmed }) => console.log(`onEvent ${event.type} confirmed=${confirmed}`),
});

const tracer = trace.getTracer('observability-example');
await tracer.startActiveSpan('reconcile order-42', async (span) => {
  try {
    // the token exchange, then the read: CLIENT spans, children of this one, with traceparent sent
    await client.getOrderByExternalId('order-42');
    fake.failNext(1, 503, { retryAfter: 0, only: 'business' });
    await client.getOrderByExternalId('order-42'); // retried once: checkout.attempts = 2
    await client.getOrderByExternalId('order-missing').catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error; // error.type = "404"
    });
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
});

// deliveries: handled (its confirmation read is a child span), duplicate, bad signature
const body = JSON.stringify({ eventId: 'evt-1', type: 'otc.trade.settled', tradeId: 'trade-7' });
const deliver = async (signature: string) =>
  (await handler.handle(new Request('http://127.0.0.1/webhooks', { method: 'POST', headers: { 'x-provider-signature': signature }, body })))
    .status;
const signature = await signPayload(body, webhookSecret);
console.log(`deliveries answered: ${await deliver(signature)}, ${await deliver(signature)}, ${await deliver('sha256=00')}`);

await server.close();
await otel.shutdown(); // flushes the spans and exports the metrics
console.log('observability example done');
