// A webhook route in Hono (Node, Bun, Deno, Cloudflare Workers). handler.handle() takes the Fetch API
// Request, whose raw body Hono leaves untouched. Run on Node: npx tsx examples/webhooks/hono.ts
import { pathToFileURL } from 'node:url';
import { Hono } from 'hono';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';

/** A Hono app with POST /webhooks. */
export function createApp(options: WebhookHandlerOptions): Hono {
  const handler = createWebhookHandler(options);
  const app = new Hono();
  app.post('/webhooks', (c) => handler.handle(c.req.raw));
  return app;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = createApp({
    secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
    client: new CheckoutClient(),
    store: new MemoryEventStore(), // one process; RedisEventStore or PostgresEventStore for a fleet
    resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-of-${event.tradeId}` : undefined),
    onEvent: ({ event, confirmed }) => console.log(event.type, event.eventId, { confirmed }),
  });
  // on Node, @hono/node-server; Bun and Deno serve `app.fetch` directly (export default app)
  const { serve } = await import('@hono/node-server');
  serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1' });
}
