// A Next.js App Router route handler: save as app/api/webhooks/route.ts.
// Route handlers receive the Fetch API Request with its raw body, so no config is needed.
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, type WebhookHandler } from 'checkout-partner-sdk/webhooks';

// `next build` imports every route module while it collects page data, where the secrets (set at
// run time: CI, Docker) are absent: `new CheckoutClient()` at module scope would fail the build with
// "missing baseUrl". So the handler is made on the first request, then reused by this server
// instance (its event store and key cache with it). A missing variable still fails loudly, on that
// request, and the next request tries again.
let handler: WebhookHandler | undefined;

function webhookHandler(): WebhookHandler {
  handler ??= createWebhookHandler({
    secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
    client: new CheckoutClient(), // reads CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
    resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-of-${event.tradeId}` : undefined),
    onEvent: async ({ event, order, confirmed }) => {
      if (event.type === 'otc.trade.settled' && confirmed) console.log('settled', order?.externalId);
    },
    // serverless instances share no memory: a RedisEventStore ('checkout-partner-sdk/redis') for more than one
    store: new MemoryEventStore(),
  });
  return handler;
}

export async function POST(request: Request): Promise<Response> {
  return webhookHandler().handle(request);
}
