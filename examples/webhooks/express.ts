// A webhook route in Express. Run: npx tsx examples/webhooks/express.ts
// The route has no body parser: handler.node() reads the raw body the signature covers.
// (Next to app.use(express.json()), give this route express.raw({ type: 'application/json' }) instead.)
import { pathToFileURL } from 'node:url';
import express from 'express';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';

/** An Express app with POST /webhooks, mounted before any JSON body parser. */
export function createApp(options: WebhookHandlerOptions) {
  const handler = createWebhookHandler(options);
  const app = express();
  app.post('/webhooks', (req, res) => handler.node(req, res));
  app.use(express.json()); // the rest of the app may parse JSON
  return { app, handler };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { app, handler } = createApp({
    secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
    client: new CheckoutClient(),
    store: new MemoryEventStore(), // one process; RedisEventStore or PostgresEventStore for a fleet
    resolveWithdrawalExternalId: (event) => (typeof event['externalId'] === 'string' ? event['externalId'] : undefined),
    onEvent: async ({ event, withdrawal, confirmed }) => {
      if (event.type === 'pix.withdrawal.settled' && confirmed) console.log('paid out', withdrawal?.externalId);
    },
  });
  const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  process.once('SIGTERM', () => void handler.drain().then(() => server.close()));
}
