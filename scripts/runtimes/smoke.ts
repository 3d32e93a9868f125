/**
 * The runtime smoke suite: what every runtime partners use must do with the BUILT package, against
 * the fake checkout service on loopback. Web-standard APIs only (fetch, Request, Web Crypto), so
 * the same code runs on Node, Bun, Deno and workerd.
 */
import { CheckoutClient, CheckoutError, NotFoundError } from 'checkout-partner-sdk';
import { createStatusTracker, MemoryStatusStore, type StatusChange } from 'checkout-partner-sdk/tracker';
import {
  createWebhookHandler,
  MemoryEventStore,
  parseEvent,
  signPayload,
  verifySignature,
  type WebhookContext,
} from 'checkout-partner-sdk/webhooks';

export interface SmokeInput {
  baseUrl: string;
  partnerId: string;
  partnerSecret: string;
}

export interface SmokeResult {
  ok: boolean;
  checks: string[];
  failure?: string;
}

class SmokeFailure extends Error {
  override readonly name = 'SmokeFailure';
}

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new SmokeFailure(what);
}

/** Runs the suite; never throws (the result says what failed). */
export async function smoke(input: SmokeInput): Promise<SmokeResult> {
  const checks: string[] = [];
  const pass = (what: string) => checks.push(what);
  try {
    const client = new CheckoutClient({ ...input, maxRetries: 0, timeoutMs: 10_000 });

    const token = await client.getAccessToken();
    check(typeof token === 'string' && token.split('.').length === 3, 'token exchange gives a JWT');
    check((await client.getAccessToken()) === token, 'the token is cached');
    pass('token exchange');

    const me = await client.getMe();
    check(me !== null && typeof me === 'object', 'GET /auth/me gives an object');
    pass('GET /auth/me');

    const order = await client.getOrderByExternalId('smoke order/1');
    check(order.externalId === 'smoke order/1' && order.settlement?.status === 'Settled', 'GET order by external id');
    pass('GET /orders/by-external-id');

    const withdrawal = await client.getWithdrawalByExternalId('w-1');
    check(withdrawal.externalId === 'w-1' && withdrawal.status === 'Completed', 'GET withdrawal by external id');
    pass('GET /withdrawals/by-external-id');

    const missing = await client.getOrderByExternalId('no-such-order').then(
      () => undefined,
      (error: unknown) => error,
    );
    check(missing instanceof NotFoundError && missing instanceof CheckoutError && missing.status === 404, '404 is a NotFoundError');
    pass('404 → NotFoundError');

    const secret = 'whsec-smoke';
    const body = JSON.stringify({ eventId: 'e-1', type: 'otc.trade.settled', tradeId: 't-1' });
    const signature = await signPayload(body, secret);
    check(/^sha256=[0-9a-f]{64}$/.test(signature), 'signPayload gives sha256=<hex>');
    check(await verifySignature({ payload: body, signature, secret }), 'verifySignature accepts its own signature');
    check(!(await verifySignature({ payload: `${body} `, signature, secret })), 'verifySignature refuses another body');
    check(parseEvent(body).eventId === 'e-1', 'parseEvent');
    pass('sign, verify, parse');

    const seen: WebhookContext[] = [];
    const handler = createWebhookHandler({
      secret,
      client,
      store: new MemoryEventStore(),
      resolveOrderExternalId: () => 'smoke order/1',
      onEvent: (context) => {
        seen.push(context);
      },
    });
    const deliver = (sig: string) =>
      handler.handle(
        new Request('http://127.0.0.1/webhooks', {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', 'x-provider-signature': sig },
        }),
      );
    const first = await deliver(signature);
    check(first.status === 200, `a signed event is answered 200 (got ${first.status})`);
    check(
      seen.length === 1 && seen[0]?.confirmed === true && seen[0].order?.externalId === 'smoke order/1',
      'onEvent ran once, confirmed by the order read',
    );
    const again = await deliver(signature);
    check(again.status === 200 && seen.length === 1, 'a redelivery is 200 and not handled again');
    const forged = await deliver(`sha256=${'0'.repeat(64)}`);
    check(forged.status === 401 && seen.length === 1, 'a bad signature is 401');
    await handler.drain();
    pass('webhook handler (verify, confirm, deduplicate)');

    const changes: StatusChange[] = [];
    const tracker = createStatusTracker({
      client,
      store: new MemoryStatusStore(),
      claimIntervalMs: 10,
      onChange: (change) => void changes.push(change),
    });
    tracker.start();
    const trackerHandler = createWebhookHandler({ secret, client, tracker, resolveOrderExternalId: () => 'smoke order/1' });
    const nudged = await trackerHandler.handle(
      new Request('http://127.0.0.1/webhooks', {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-provider-signature': signature },
      }),
    );
    check(nudged.status === 200, `an event to a handler with a tracker is answered 200 (got ${nudged.status})`);
    for (let turn = 0; turn < 500 && changes.length === 0; turn += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    check(
      changes.length === 1 && changes[0]?.status === 'Settled' && changes[0].source === 'webhook',
      'the tracker handed the change over once, from the webhook',
    );
    const drained = await tracker.drain({ timeoutMs: 2_000 });
    check(drained.drained && changes.length === 1, 'the tracker drained');
    pass('status tracker (webhook nudge, onChange once)');

    return { ok: true, checks };
  } catch (error) {
    const failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { ok: false, checks, failure };
  }
}
