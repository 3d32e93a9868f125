import { createServer } from 'node:http';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';

const orderOfTrade = new Map<string, string>(); // your lookup, if you keep one (else the tracker's reads find it)
async function markPaid(orderExternalId: string): Promise<void> {
  console.log(`paid ${orderExternalId}`); // your fulfilment
}

const client = new CheckoutClient(); // CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
const tracker = createStatusTracker({
  client,
  store: new MemoryStatusStore(), // RedisStatusStore or PostgresStatusStore across processes
  onChange: async (change) => {
    if (change.kind === 'order' && change.status === 'Settled') await markPaid(change.externalId);
  },
});
tracker.start();
await tracker.watchOrder('order-42'); // durable and idempotent; tracker.watchWithdrawal('w-7') likewise

// each verified, new event asks the tracker to read its record now; no onEvent: onChange fulfils
const handler = createWebhookHandler({
  secret: process.env.WEBHOOK_SIGNING_SECRET!,
  client,
  tracker,
  resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? orderOfTrade.get(event.tradeId) : undefined),
});
const server = createServer((req, res) => handler.node(req, res)).listen(Number(process.env.PORT ?? 3000));

// SIGTERM comes after the platform's pre-stop wait; 20 s of drains at most, within a 30 s grace period
async function shutdown(): Promise<void> {
  await handler.drain(); // 10 s at most: new deliveries get 503, those in hand finish
  await tracker.drain(); // 10 s at most
  server.close(); // then what the stores use (await pool.end()): the process exits
}
process.once('SIGTERM', () => void shutdown());
