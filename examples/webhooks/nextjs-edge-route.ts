// A Next.js App Router route handler on the Edge runtime: save as app/api/webhooks/route.ts.
// The Edge runtime resolves the package's Web build (Web Crypto, fetch, no `node:` import).
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, type WebhookHandler } from 'checkout-partner-sdk/webhooks';

export const runtime = 'edge';

// Made on the first request, as in nextjs-route.ts: `next build` runs without the secrets.
let handler: WebhookHandler | undefined;

function webhookHandler(): WebhookHandler {
  handler ??= createWebhookHandler({
    secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
    client: new CheckoutClient(), // reads CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
    resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-of-${event.tradeId}` : undefined),
    onEvent: async ({ event, order, confirmed }) => {
      if (event.type === 'otc.trade.settled' && confirmed) console.log('edge settled', order?.externalId);
    },
    // Edge instances share no memory: a store that works over fetch for more than one, or Node with a RedisEventStore
    store: new MemoryEventStore(),
  });
  return handler;
}

export async function POST(request: Request): Promise<Response> {
  return webhookHandler().handle(request);
}
