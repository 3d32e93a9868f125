// A webhook route in Fastify 5. Run: npx tsx examples/webhooks/fastify.ts
// Fastify's JSON parser keeps no raw bytes, so the webhook route lives in its own plugin with a
// content-type parser that hands the bytes on (parseAs: 'buffer'); the rest of the app keeps parsing JSON.
import { pathToFileURL } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, type WebhookHandler, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';

/** A Fastify app with POST /webhooks (raw bytes) beside routes that get parsed JSON. */
export function createApp(options: WebhookHandlerOptions): { app: FastifyInstance; handler: WebhookHandler } {
  const handler = createWebhookHandler(options);
  const app = Fastify();
  // not wrapped in fastify-plugin: the parser below applies inside this plugin only
  void app.register(async (webhooks) => {
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    webhooks.post('/webhooks', (request, reply) => handler.fastify(request, reply));
  });
  app.post('/orders', async (request) => ({ received: request.body })); // Fastify's JSON parser as usual
  // app.close() (on SIGTERM below): finish the events in hand before the server stops
  // (an async hook that resolves with a value fails Fastify's close, so the report is logged, not returned)
  app.addHook('preClose', async () => {
    const report = await handler.drain(); // 10 s by default: within a 30 s grace period
    if (!report.drained) app.log.warn({ inHand: report.inHand }, `left ${report.inHand.length} deliveries to redelivery`);
  });
  return { app, handler };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { app } = createApp({
    secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
    client: new CheckoutClient(),
    store: new MemoryEventStore(), // one process; RedisEventStore or PostgresEventStore for a fleet
    resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-of-${event.tradeId}` : undefined),
    onEvent: ({ event, confirmed }) => console.log(event.type, event.eventId, { confirmed }),
  });
  await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
  process.once('SIGTERM', () => void app.close());
}
