// A Next.js App Router route handler: save as app/api/webhooks/route.ts.
// Route handlers receive the Fetch API Request with its raw body, so no config is needed.
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';

// Made once per server instance (module scope), so its event store and key cache are reused.
const handler = createWebhookHandler({
  secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
  client: new CheckoutClient(),
  resolveOrderExternalId: (event) => (typeof event['tradeId'] === 'string' ? `order-of-${event['tradeId']}` : undefined),
  onEvent: async ({ event, order, confirmed }) => {
    if (event.type === 'otc.trade.settled' && confirmed) console.log('settled', order?.externalId);
  },
  // Serverless instances do not share memory: pass a RedisEventStore from 'checkout-partner-sdk/redis' as `store`.
});

export async function POST(request: Request): Promise<Response> {
  return handler.handle(request);
}
