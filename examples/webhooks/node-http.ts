// A webhook endpoint on plain node:http. Run: npx tsx examples/webhooks/node-http.ts
// Env: CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET, WEBHOOK_SIGNING_SECRET
// (comma-separated while rotating), PORT.
import { createServer as createHttpServer, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, type WebhookHandler, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';

/** A server that answers POST /webhooks with the handler, and 404 elsewhere. */
export function createServer(options: WebhookHandlerOptions): { server: Server; handler: WebhookHandler } {
  const handler = createWebhookHandler(options);
  const server = createHttpServer((req, res) => {
    if (req.method === 'POST' && req.url === '/webhooks') {
      handler.node(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  return { server, handler };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { server, handler } = createServer({
    secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
    client: new CheckoutClient(), // reads CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
    store: new MemoryEventStore(), // one process; RedisEventStore or PostgresEventStore for a fleet
    // your own lookup: which order did this trade pay for?
    resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-of-${event.tradeId}` : undefined),
    onEvent: async ({ event, order, confirmed }) => {
      console.log(event.type, event.eventId, { confirmed, settlement: order?.settlement });
    },
    logger: (entry) => console.log(JSON.stringify(entry)),
  });
  server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => console.log('listening on', server.address()));
  process.once('SIGTERM', () => {
    // finish (or release) the events in hand, at most 10 s (a 30 s grace period), then stop; any
    // still running then are left to their lease and the provider's redelivery
    void handler.drain().then((report) => {
      if (!report.drained) console.warn('still in hand at shutdown:', report.inHand);
      server.close();
    });
  });
}
