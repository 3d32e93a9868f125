// The status tracker, end to end. Run: npm run demo:tracker   (or: npx tsx examples/tracker-demo.ts)
//
// Starts the fake checkout service and a webhook endpoint on free 127.0.0.1 ports, then shows each
// status change handed to onChange exactly once, whatever the provider does:
//   1. a BRZ order (no trade, no webhook) seen by polling alone;
//   2. a crypto swap seen through its webhook (the handler nudges the tracker, answers 200 at once);
//   3. an event that arrives before the status read agrees: nothing is closed, the change comes when
//      the read shows it;
//   4. the same event five times, and replayed later with a new eventId: no second call.
// Every step is asserted: the exit code is 0 only when all of them behaved.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createEvent, createFakeCheckout, deliverEvent } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MemoryStatusStore, type StatusChange } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler, MemoryEventStore } from 'checkout-partner-sdk/webhooks';

const say = (line: string) => console.log(`   ${line}`);
const step = (title: string) => console.log(`\n== ${title}`);
function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`DEMO FAILED: ${what}`);
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(20)) if (condition()) return;
  check(condition(), what);
}

const fake = createFakeCheckout({ partners: [{ partnerId: 'demo-partner', partnerSecret: 'demo-secret' }] });
const service = await fake.listen();
const client = new CheckoutClient({ baseUrl: service.url, partnerId: 'demo-partner', partnerSecret: 'demo-secret' });

// 1. the tracker: onChange is where the partner fulfils, once per status change
const handled: StatusChange[] = [];
const tracker = createStatusTracker({
  client,
  store: new MemoryStatusStore(), // RedisStatusStore / PostgresStatusStore for a fleet
  // demo pace: a read every 300 ms (default: every 2 s for 10 minutes, then backing off to 5 minutes)
  schedule: { fastIntervalMs: 300, maxIntervalMs: 300 },
  onChange: async (change) => {
    handled.push(change);
    say(`onChange: ${change.kind} ${change.externalId} ${change.previousStatus ?? '(new)'} -> ${change.status} (${change.source})`);
  },
});
tracker.start();

// 2. the webhook endpoint: verify, dedupe, nudge the tracker, 200 (no onEvent: onChange is the one place to fulfil)
const SECRET = 'whsec_demo';
const orderOfTrade = new Map<string, string>();
const handler = createWebhookHandler({
  secret: SECRET,
  client,
  tracker,
  store: new MemoryEventStore(),
  resolveOrderExternalId: (event) => orderOfTrade.get(String(event.tradeId)),
});
const receiver = http.createServer((req, res) => handler.node(req, res));
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
const calls = (id: string) => handled.filter((c) => c.externalId === id).map((c) => c.status);

try {
  step('1. A BRZ order: no trade, no webhook; polling sees it');
  fake.setOrder({ externalId: 'order-brz', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
  await tracker.watchOrder('order-brz'); // when the checkout opens
  await until(() => calls('order-brz').length === 1, 'the BRZ order was not seen Pending');
  fake.settleOrder('order-brz');
  await until(() => calls('order-brz').includes('Settled'), 'the BRZ order was not seen Settled');
  check(calls('order-brz').join() === 'Pending,Settled', `BRZ order calls: ${calls('order-brz').join()}`);

  step('2. A crypto swap: its webhook nudges the tracker');
  fake.setOrder({ externalId: 'order-swap', currency: 'USDT', settlement: { status: 'Settled', tradeId: 'trade-1' } });
  orderOfTrade.set('trade-1', 'order-swap');
  const settled = createEvent('otc.trade.settled', { tradeId: 'trade-1' });
  const delivery = await deliverEvent(webhookUrl, settled, { secret: SECRET });
  say(`delivered ${settled.eventId} -> ${delivery.deliveries.map((d) => d.status).join(', ')}`);
  await until(() => calls('order-swap').length === 1, 'the swap was not seen');
  check(handled.find((c) => c.externalId === 'order-swap')?.source === 'webhook', 'the swap was not seen through its webhook');

  step('3. An event that arrives before the read agrees');
  fake.setOrder({ externalId: 'order-early', currency: 'USDT', settlement: { status: 'Pending', tradeId: 'trade-2' } });
  orderOfTrade.set('trade-2', 'order-early');
  await deliverEvent(webhookUrl, createEvent('otc.trade.settled', { tradeId: 'trade-2' }), { secret: SECRET });
  await until(() => calls('order-early').length === 1, 'the early event did not read the order');
  say(`the read shows ${calls('order-early').join()}: nothing closed, the order stays watched`);
  await sleep(500);
  fake.settleOrder('order-early');
  await until(() => calls('order-early').includes('Settled'), 'the change after the early event never arrived');
  check(
    handled.find((c) => c.externalId === 'order-early' && c.status === 'Settled')?.source === 'webhook',
    'the settled change was not attributed to its early event',
  );

  step('4. Five copies of an event, then a replay with a new eventId');
  const copies = await deliverEvent(webhookUrl, settled, { secret: SECRET, duplicates: 4 });
  say(`delivered ${settled.eventId} 5 times -> ${copies.deliveries.map((d) => d.status).join(', ')}`);
  await deliverEvent(webhookUrl, { ...settled, eventId: `${settled.eventId}-replayed` }, { secret: SECRET });
  await sleep(1_000);
  check(calls('order-swap').length === 1, `order-swap got ${calls('order-swap').length} calls`);
  say('order-swap: still one onChange call');

  const report = await tracker.drain({ timeoutMs: 5_000 });
  check(report.drained, 'the tracker did not drain');
  console.log(`\nAll steps behaved as expected: ${handled.length} status changes, each handed over once.`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await tracker.drain({ timeoutMs: 1_000 });
  receiver.closeAllConnections();
  receiver.close();
  await service.close();
}
