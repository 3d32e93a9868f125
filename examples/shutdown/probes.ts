import { createServer } from 'node:http';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createStatusTracker } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';

const orderOfTrade = new Map([['t-7', 'order-42']]); // your lookup: which order a trade paid
const client = new CheckoutClient(); // CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
const tracker = createStatusTracker({
  client,
  onChange: async (change) => {
    if (change.kind === 'order' && change.status === 'Settled') console.log(`paid ${change.externalId}`); // your fulfilment
  },
});
tracker.start();
await tracker.watchOrder('order-42');
const handler = createWebhookHandler({
  secret: process.env.WEBHOOK_SIGNING_SECRET!,
  client,
  tracker,
  resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? orderOfTrade.get(event.tradeId) : undefined),
});
const server = createServer((req, res) => handler.node(req, res)).listen(Number(process.env.PORT ?? 3000));

// the probes, on their own port
const probes = createServer((req, res) => {
  const reply = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (req.url === '/livez') {
    // alive while its loop claims: lastClaimAt moves at least every few claim intervals
    tracker.health().then(
      (health) => reply(health.running && Date.now() - (health.lastClaimAt ?? 0) < 30_000 ? 200 : 503, health),
      (error: unknown) => reply(503, { error: String(error) }),
    );
  } else if (req.url === '/readyz') {
    // not ready once draining: the load balancer stops sending deliveries before the process exits
    const health = handler.health();
    reply(health.draining ? 503 : 200, health);
  } else reply(404, {});
}).listen(Number(process.env.PROBE_PORT ?? 8081));

// SIGTERM comes after the platform's pre-stop wait (webhooks.md#graceful-shutdown)
async function shutdown(): Promise<void> {
  await handler.drain(); // /readyz answers 503 from here on
  await tracker.drain();
  server.close();
  probes.close(); // an open server keeps the process alive
}
process.once('SIGTERM', () => void shutdown());
