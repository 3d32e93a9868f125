import { createServer } from 'node:http';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';

const orderOfTrade = new Map([['t-7', 'order-42']]); // your lookup: which order a trade paid
const client = new CheckoutClient(); // CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
const tracker = createStatusTracker({
  client,
  store: new MemoryStatusStore(), // one process; RedisStatusStore or PostgresStatusStore for a fleet
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

// the probes, on their own port; { store: false }: no outage slows them
const probes = createServer((req, res) => {
  void tracker.health({ store: false }).then((health) => {
    const answers: Record<string, boolean> = {
      '/startupz': health.started, // the first claim was tried
      '/livez': health.live, // the loop is not wedged; no outage fails it
      '/readyz': health.ready && !handler.health().draining, // the store answers and no drain began
    };
    const ok = answers[req.url ?? ''];
    res.writeHead(ok === undefined ? 404 : ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(health));
  });
}).listen(Number(process.env.PROBE_PORT ?? 8081));

// SIGTERM comes after the platform's pre-stop wait (webhooks.md#graceful-shutdown)
async function shutdown(): Promise<void> {
  await handler.drain(); // /readyz answers 503 from here on
  await tracker.drain();
  server.close();
  probes.close(); // an open server keeps the process alive
}
process.once('SIGTERM', () => void shutdown());
