// The whole partner flow, end to end. Run: npm run demo   (or: npx tsx examples/demo.ts)
//
// With no configuration it starts the fake checkout service and a webhook receiver on free
// 127.0.0.1 ports, then walks: token exchange and getMe; a crypto order whose trade settles (the
// provider's otc.trade.settled delivered twice: verified, deduplicated, confirmed by the order GET);
// a BRZ order confirmed by polling; a PIX withdrawal completed; a cancelled trade. Every step is
// asserted: the exit code is 0 only when all of them behaved.
//
// With CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID and CHECKOUT_PARTNER_SECRET set it only reads from that
// service: getMe, plus the order / withdrawal named by CHECKOUT_DEMO_ORDER_ID / CHECKOUT_DEMO_WITHDRAWAL_ID.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CheckoutClient, type Order } from 'checkout-partner-sdk';
import { createEvent, createFakeCheckout, deliverEvent } from 'checkout-partner-sdk/testing';
import { createWebhookHandler, MemoryEventStore, type WebhookContext } from 'checkout-partner-sdk/webhooks';

const ENV_NAMES = ['CHECKOUT_BASE_URL', 'CHECKOUT_PARTNER_ID', 'CHECKOUT_PARTNER_SECRET'] as const;

class DemoFailure extends Error {
  override readonly name = 'DemoFailure';
}

/** An assertion: a surprise ends the demo with a non-zero exit code. */
function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new DemoFailure(what);
}

const step = (title: string) => console.log(`\n== ${title}`);
const say = (line: string) => console.log(`   ${line}`);

async function main(): Promise<void> {
  const set = ENV_NAMES.filter((name) => process.env[name]);
  if (set.length === ENV_NAMES.length) return readOnly();
  if (set.length > 0) {
    const missing = ENV_NAMES.filter((name) => !process.env[name]);
    throw new DemoFailure(`${set.join(', ')} set but ${missing.join(', ')} missing: set all three, or none for the local demo`);
  }
  return localFlow();
}

/** Against a real service: reads only. */
async function readOnly(): Promise<void> {
  const client = new CheckoutClient(); // everything from the environment
  step(`Reading from ${client.baseUrl} as partner ${client.partnerId}`);
  const me = await client.getMe();
  say(`getMe: OK ${JSON.stringify(me)}`);
  const orderId = process.env.CHECKOUT_DEMO_ORDER_ID;
  if (orderId) {
    const order = await client.getOrderByExternalId(orderId);
    say(`order ${order.externalId}: ${order.settlement?.status ?? '(no settlement yet)'} ${JSON.stringify(order)}`);
  }
  const withdrawalId = process.env.CHECKOUT_DEMO_WITHDRAWAL_ID;
  if (withdrawalId) {
    const withdrawal = await client.getWithdrawalByExternalId(withdrawalId);
    say(`withdrawal ${withdrawal.externalId}: ${withdrawal.status}`);
  }
  if (!orderId && !withdrawalId) say('Set CHECKOUT_DEMO_ORDER_ID / CHECKOUT_DEMO_WITHDRAWAL_ID to read an order / a withdrawal too.');
}

/** The full flow against the fake service and a local webhook receiver. */
async function localFlow(): Promise<void> {
  const partner = { partnerId: 'demo-partner', partnerSecret: `demo-${crypto.randomUUID()}` };
  const webhookSecret = `whsec-${crypto.randomUUID()}`;
  const fake = createFakeCheckout({ partners: [partner], tokenTtlSeconds: 3600 });
  const service = await fake.listen();
  const client = new CheckoutClient({ baseUrl: service.url, ...partner });

  // No status tracker here, so onEvent is where a partner fulfils (when confirmed), and the BRZ order
  // (no trade webhook) is polled in step 3. With a tracker, fulfil in its onChange: npm run demo:tracker.
  // What the partner's own database would know: which order a trade belongs to, which withdrawal a
  // provider payout is. The provider's payload carries its ids; the status GETs need ours.
  const orderOfTrade = new Map<string, string>();
  const withdrawalOfPayout = new Map<string, string>();
  const handled: WebhookContext[] = [];
  const handler = createWebhookHandler({
    secret: webhookSecret,
    client,
    store: new MemoryEventStore(),
    resolveOrderExternalId: (event) => orderOfTrade.get(String(event.tradeId)),
    resolveWithdrawalExternalId: (event) => withdrawalOfPayout.get(String(event.payoutId)),
    confirm: { attempts: 3, delayMs: 100 },
    onEvent: (context) => {
      handled.push(context);
      const record = context.order ?? context.withdrawal;
      say(
        `receiver: handled ${context.event.type} ${context.event.eventId} (confirmed: ${context.confirmed}) -> ${JSON.stringify(record)}`,
      );
    },
  });
  const receiver = http.createServer((req, res) => handler.node(req, res));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;

  try {
    step('Setup');
    say(`fake checkout service: ${service.url}`);
    say(`webhook receiver:      ${webhookUrl}`);

    step('1. Token exchange and getMe');
    await client.getAccessToken();
    const expiresAt = client.tokenExpiresAt;
    check(expiresAt !== undefined && expiresAt > Date.now(), 'the token has an expiry in the future');
    say(`token obtained (reused until ${new Date(expiresAt).toISOString()}); the token itself is never printed`);
    const me = await client.getMe();
    check(me.partnerId === partner.partnerId, 'getMe names the partner');
    say(`getMe: partner ${me.partnerId}, partner API enabled`);
    check(fake.stats.tokensIssued === 1, 'one token exchange for both calls');

    step('2. Crypto order: the trade settles (otc.trade.settled, delivered twice)');
    fake.setOrder({
      externalId: 'order-1001',
      currency: 'USDT',
      amount: '125.00',
      settlement: { status: 'Pending', tradeId: 'trade-7001' },
    });
    orderOfTrade.set('trade-7001', 'order-1001');
    const before = await client.getOrderByExternalId('order-1001');
    say(`order order-1001 before: ${before.settlement?.status}`);
    fake.settleOrder('order-1001');
    const settled = createEvent('otc.trade.settled', { tradeId: 'trade-7001' });
    const report = await deliverEvent(webhookUrl, settled, { secret: webhookSecret, duplicates: 1 });
    say(`provider: delivered ${settled.eventId} ${report.deliveries.length} times -> ${report.deliveries.map((d) => d.status).join(', ')}`);
    check(report.deliveries.length === 2 && report.deliveries.every((d) => d.status === 200), 'both deliveries answered 200');
    const ofSettled = handled.filter((c) => c.event.eventId === settled.eventId);
    check(ofSettled.length === 1, 'the duplicate delivery was deduplicated (handled once)');
    check(ofSettled[0]?.confirmed === true, 'the event was confirmed by the order GET');
    const order = await client.getOrderByExternalId('order-1001');
    check(order.settlement?.status === 'Settled' && order.settlement.tradeId === 'trade-7001', 'the order GET says Settled for this trade');
    say(`order order-1001: ${order.settlement.status} (trade ${order.settlement.tradeId}); duplicate ignored`);

    step('3. BRZ order: no trade, no trade event; confirmed by polling');
    fake.setOrder({ externalId: 'order-1002', currency: 'BRZ', amount: '250.00', settlement: { status: 'Pending', tradeId: null } });
    fake.settleOrder('order-1002', { afterReads: 2 });
    let polls = 0;
    const isSettled = (o: Order) => {
      polls += 1;
      return o.settlement?.status === 'Settled';
    };
    const brz = await client.waitForOrder('order-1002', isSettled, { intervalMs: 200, timeoutMs: 10_000 });
    check(brz.settlement?.status === 'Settled' && brz.settlement.tradeId === null, 'the BRZ order settled with no tradeId');
    say(`order order-1002 (BRZ): ${brz.settlement.status} after ${polls} polls (tradeId null)`);

    step('4. PIX withdrawal: completed (pix.withdrawal.settled)');
    fake.setWithdrawal({ externalId: 'withdrawal-3001', status: 'Processing', amount: '80.00' });
    withdrawalOfPayout.set('payout-9001', 'withdrawal-3001');
    say(`withdrawal withdrawal-3001 before: ${(await client.getWithdrawalByExternalId('withdrawal-3001')).status}`);
    fake.completeWithdrawal('withdrawal-3001');
    const payout = createEvent('pix.withdrawal.settled', { payoutId: 'payout-9001' });
    await deliverEvent(webhookUrl, payout, { secret: webhookSecret });
    const ofPayout = handled.find((c) => c.event.eventId === payout.eventId);
    check(ofPayout?.confirmed === true && ofPayout.withdrawal?.status === 'Completed', 'the withdrawal event was confirmed: Completed');
    const withdrawal = await client.getWithdrawalByExternalId('withdrawal-3001');
    check(withdrawal.status === 'Completed', 'the withdrawal GET says Completed');
    say(`withdrawal withdrawal-3001: ${withdrawal.status}`);

    step('5. A cancelled trade (otc.trade.cancelled)');
    fake.setOrder({
      externalId: 'order-1003',
      currency: 'BTC',
      amount: '0.0021',
      settlement: { status: 'Pending', tradeId: 'trade-7002' },
    });
    orderOfTrade.set('trade-7002', 'order-1003');
    fake.cancelOrder('order-1003');
    const cancelled = createEvent('otc.trade.cancelled', { tradeId: 'trade-7002' });
    await deliverEvent(webhookUrl, cancelled, { secret: webhookSecret });
    const ofCancelled = handled.find((c) => c.event.eventId === cancelled.eventId);
    check(
      ofCancelled?.confirmed === true && ofCancelled.order?.settlement?.status === 'Cancelled',
      'the cancellation was confirmed by the order GET',
    );
    say(`order order-1003: ${ofCancelled.order.settlement.status} (trade trade-7002)`);

    step('6. A forged event is refused');
    const forged = createEvent('otc.trade.settled', { tradeId: 'trade-7002' });
    const forgery = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-provider-signature': `sha256=${'0'.repeat(64)}` },
      body: JSON.stringify(forged),
    });
    check(forgery.status === 401, 'a bad signature is answered 401');
    check(!handled.some((c) => c.event.eventId === forged.eventId), 'the forged event was not handled');
    say(`receiver answered ${forgery.status}; nothing handled`);

    step('Done');
    check(handled.length === 3, 'three events handled in all');
    say(`${fake.stats.requests} requests to the service, ${fake.stats.tokensIssued} token exchange(s), ${handled.length} events handled`);
    say('All steps behaved as expected.');
  } finally {
    await handler.drain();
    await new Promise<void>((resolve) => {
      receiver.close(() => resolve());
      receiver.closeAllConnections();
    });
    await service.close();
  }
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (error: unknown) => {
    const name = error instanceof Error ? error.name : 'Error';
    const message = error instanceof Error ? error.message : String(error);
    console.error(`\nDEMO FAILED: ${name === 'DemoFailure' ? 'expected that' : name}: ${message}`);
    process.exitCode = 1;
  },
);
