import { createServer } from 'node:http';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore } from 'checkout-partner-sdk/webhooks';

const handler = createWebhookHandler({
  secret: process.env.WEBHOOK_SIGNING_SECRET!,
  client: new CheckoutClient(), // CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
  store: new MemoryEventStore(), // one process; RedisEventStore or PostgresEventStore for a fleet
  // your lookup: which order did this trade pay for?
  resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-of-${event.tradeId}` : undefined),
  onEvent: async ({ event, order, confirmed }) => {
    if (confirmed && event.type === 'otc.trade.settled') console.log(`paid ${order?.externalId}`); // your fulfilment
  },
});
const server = createServer((req, res) => handler.node(req, res)).listen(Number(process.env.PORT ?? 3000));

// SIGTERM comes after the platform's pre-stop wait (a Kubernetes preStop hook of ~2 s, so the load
// balancer stops sending first); on a platform without one, wait those 2 s here, before drain()
async function shutdown(): Promise<void> {
  // new deliveries get 503 (the provider redelivers them); those in hand finish, 10 s at most
  const report = await handler.drain();
  if (!report.drained) console.warn('given up, left to the lease and redelivery:', report.inHand);
  server.close(); // then close what you opened last (a PostgresEventStore's pool: await pool.end())
}
process.once('SIGTERM', () => void shutdown());
