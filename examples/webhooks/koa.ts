// A webhook route in Koa 3. Run: npx tsx examples/webhooks/koa.ts
// @koa/bodyparser parses JSON for the whole app and keeps ctx.request.rawBody, which handler.koa()
// verifies the signature over (with no body parser, handler.koa() reads the stream itself).
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, type WebhookHandler, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';

/** A Koa app with POST /webhooks beside routes that get parsed JSON. */
export function createApp(options: WebhookHandlerOptions): { app: Koa; handler: WebhookHandler } {
  const handler = createWebhookHandler(options);
  const app = new Koa();
  app.use(bodyParser());
  app.use(async (ctx, next) => {
    // handler.koa sets ctx.respond = false and answers on ctx.res itself
    if (ctx.method === 'POST' && ctx.path === '/webhooks') return handler.koa(ctx);
    await next();
  });
  app.use(async (ctx) => {
    if (ctx.method === 'POST' && ctx.path === '/orders') ctx.body = { received: ctx.request.body };
  });
  return { app, handler };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { app, handler } = createApp({
    secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
    client: new CheckoutClient(),
    store: new MemoryEventStore(), // one process; RedisEventStore or PostgresEventStore for a fleet
    resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-of-${event.tradeId}` : undefined),
    onEvent: ({ event, confirmed }) => console.log(event.type, event.eventId, { confirmed }),
  });
  const server: Server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  process.once('SIGTERM', () => void handler.drain().then(() => server.close()));
}
