// Client quick start (read-only). Run: npx tsx examples/client-quickstart.ts
// Reads CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID and CHECKOUT_PARTNER_SECRET; when they are not set it
// starts the SDK's fake checkout service on 127.0.0.1 with one order, so it runs anywhere.
import { CheckoutClient, NotFoundError } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';

const local = process.env.CHECKOUT_BASE_URL ? undefined : await startFakeService();

const client = new CheckoutClient(local?.credentials); // without options: everything from the environment
console.log('credentials OK:', await client.getMe());
const externalId = process.env.CHECKOUT_DEMO_ORDER_ID ?? 'order-42';
try {
  const order = await client.getOrderByExternalId(externalId);
  console.log(`order ${order.externalId}: ${order.settlement?.status ?? 'no settlement yet'}`);
} catch (error) {
  if (!(error instanceof NotFoundError)) throw error;
  console.log(`order ${externalId}: not found`);
}

await local?.server.close();

async function startFakeService() {
  const credentials = { partnerId: 'quickstart', partnerSecret: crypto.randomUUID() };
  const fake = createFakeCheckout({ partners: [credentials] });
  fake.setOrder({ externalId: 'order-42', currency: 'USDT', settlement: { status: 'Settled', tradeId: 'trade-1' } });
  const server = await fake.listen();
  return { server, credentials: { baseUrl: server.url, ...credentials } };
}
