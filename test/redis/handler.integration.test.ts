import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutClient, type LogEntry } from 'checkout-partner-sdk';
import { RedisEventStore } from 'checkout-partner-sdk/redis';
import { createWebhookHandler, signPayload, type WebhookHandler, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { keepEntries } from '../helpers/memory-logger.js';
import { eventually } from '../helpers/eventually.js';
import { flavours, type Connection } from './clients.js';

type OnEvent = NonNullable<WebhookHandlerOptions['onEvent']>;
type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;

const SECRET = 'whsec-test';
// Nothing is read through it: without resolvers the handler confirms nothing.
const client = new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 's-1' });

async function delivery(event: object): Promise<Request> {
  const body = JSON.stringify(event);
  return new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provider-signature': await signPayload(body, SECRET) },
    body,
  });
}

async function deliver(handler: WebhookHandler, event: object): Promise<number> {
  return (await handler.handle(await delivery(event))).status;
}

/** A promise with its resolve function, to hold `onEvent` until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

let prefixes = 0;
const uniquePrefix = () => `hook-test-${++prefixes}:`;

describe.each(flavours)('createWebhookHandler with RedisEventStore ($name)', (flavour) => {
  let server: RedisServer;
  let one: Connection;
  let two: Connection;
  beforeAll(async () => {
    server = await startRedis();
    one = await flavour.connect(server.url, { failFast: true });
    two = await flavour.connect(server.url, { failFast: true });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await server?.stop();
  });

  /** A handler on `connection` whose store uses `prefix`: one of a fleet's processes. */
  const handlerOn = (
    connection: Connection,
    prefix: string,
    onEvent: OnEvent,
    { unrenewed = false, ...options }: { leaseMs?: number; responseTimeoutMs?: number; unrenewed?: boolean } = {},
  ) => {
    const store = new RedisEventStore({ client: connection.client, prefix });
    return createWebhookHandler({
      secret: SECRET,
      client,
      onEvent,
      // unrenewed: the claim is never renewed (as a worker whose renewals do not reach Redis)
      store: unrenewed
        ? { claim: store.claim.bind(store), complete: store.complete.bind(store), release: store.release.bind(store) }
        : store,
      logger: false,
      ...options,
    });
  };

  it('runs onEvent exactly once for concurrent deliveries of one event to two processes', async () => {
    const prefix = uniquePrefix();
    const seen: string[] = [];
    const onEvent: OnEvent = async ({ event }) => {
      seen.push(event.eventId);
      await new Promise((resolve) => setTimeout(resolve, 50)); // hold the claim a little while others arrive
    };
    const a = handlerOn(one, prefix, onEvent);
    const b = handlerOn(two, prefix, onEvent);
    const event = { eventId: 'evt-1', type: 'otc.trade.settled', tradeId: 't-1' };
    const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => deliver(i % 2 === 0 ? a : b, event)));
    expect(seen).toEqual(['evt-1']);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    // the provider's retries of the 409s now get 200 without running it again
    expect(await deliver(a, event)).toBe(200);
    expect(await deliver(b, event)).toBe(200);
    expect(seen).toEqual(['evt-1']);
  });

  it('lets another process take over an expired lease, and the first one finishing late does not clobber it', async () => {
    const prefix = uniquePrefix();
    const event = { eventId: 'evt-slow', type: 'otc.trade.settled', tradeId: 't-2' };
    const calls: string[] = [];
    const slowGate = gate();
    const takeoverGate = gate();
    // process A: a short lease, never renewed, and a slow onEvent, so its lease expires mid-handling
    const a = handlerOn(
      one,
      prefix,
      async () => {
        calls.push('a');
        await slowGate.promise;
      },
      { leaseMs: 200, responseTimeoutMs: 200, unrenewed: true },
    );
    // process B: a normal lease
    const b = handlerOn(
      two,
      prefix,
      async () => {
        calls.push('b');
        await takeoverGate.promise;
      },
      // its 409s must come before its response timeout, on a loaded machine too
      { leaseMs: 60_000, responseTimeoutMs: 2_000 },
    );

    expect(await deliver(a, event)).toBe(503); // A is still working when its response is due
    expect(calls).toEqual(['a']);
    // the provider redelivers to B: 409 while A's lease lasts, then B claims it
    let status = 409;
    expect(await eventually(async () => (status = await deliver(b, event)) !== 409)).toBe(true);
    expect(status).toBe(503); // B claimed it and is working (its onEvent waits for the gate)
    expect(calls).toEqual(['a', 'b']);

    slowGate.open();
    await a.drain(); // A has finished onEvent and tried to complete its (expired) claim
    const later = handlerOn(one, prefix, async () => {
      calls.push('later');
    });
    expect(await deliver(later, event)).toBe(409); // still B's: A's completion did not mark it done
    expect(await one.raw('GET', `${prefix}evt-slow`)).not.toBe('done');

    takeoverGate.open();
    await b.drain();
    expect(await deliver(later, event)).toBe(200);
    expect(await one.raw('GET', `${prefix}evt-slow`)).toBe('done');
    expect(calls).toEqual(['a', 'b']);
  });

  it("keeps a worker whose lease ran out from releasing the next worker's claim in the same process", async () => {
    const prefix = uniquePrefix();
    const event = { eventId: 'evt-one-process', type: 'otc.trade.cancelled' };
    const runs: number[] = [];
    const gates = [gate(), gate()];
    const entries: WebhookLogEntry[] = [];
    const store = new RedisEventStore({ client: one.client, prefix });
    // the first worker's lease runs out when Redis expires it (below), not on a race with a short real-time lease
    // responseTimeoutMs: its 409s must come before it, on a loaded machine too
    const options = { secret: SECRET, client, store, leaseMs: 60_000, responseTimeoutMs: 2_000, logger: keepEntries(entries) };
    const handler = createWebhookHandler({
      ...options,
      onEvent: async () => {
        const run = runs.length;
        runs.push(run);
        await gates[run]?.promise;
        if (run === 0) throw new Error('the first worker fails after its lease ran out');
      },
    });
    expect(await deliver(handler, event)).toBe(503);
    expect(await deliver(handler, event)).toBe(409); // the first worker's claim holds
    const firstLease = await one.raw('GET', `${prefix}evt-one-process`);
    await one.raw('PEXPIRE', `${prefix}evt-one-process`, '1'); // its lease runs out while it still works
    let status = 409;
    expect(await eventually(async () => (status = await deliver(handler, event)) !== 409)).toBe(true);
    expect(status).toBe(503); // a second worker in this process claimed it and is working
    const secondLease = await one.raw('GET', `${prefix}evt-one-process`);
    expect(secondLease).not.toBe(firstLease);

    gates[0]?.open(); // the first worker fails and releases with its own lease: a no-op
    expect(await eventually(async () => entries.some((entry) => entry.outcome === 'failed'))).toBe(true);
    expect(await one.raw('GET', `${prefix}evt-one-process`)).toBe(secondLease);
    expect(await deliver(handler, event)).toBe(409);
    expect(runs).toEqual([0, 1]);

    gates[1]?.open();
    await handler.drain();
    expect(await one.raw('GET', `${prefix}evt-one-process`)).toBe('done');
    expect(runs).toEqual([0, 1]);
  });

  it("reports the late owner's failed completion (RedisStoreError from complete) instead of a silent success", async () => {
    const prefix = uniquePrefix();
    const event = { eventId: 'evt-taken', type: 'otc.trade.settled', tradeId: 't-3' };
    const entries: WebhookLogEntry[] = [];
    const working = gate();
    const finish = gate();
    const a = createWebhookHandler({
      secret: SECRET,
      client,
      store: new RedisEventStore({ client: one.client, prefix }),
      leaseMs: 2_000, // the handler retries a failed complete until the lease would have passed
      responseTimeoutMs: 2_000,
      logger: keepEntries(entries),
      onEvent: async () => {
        working.open();
        await finish.promise;
      },
    });
    const answered = deliver(a, event);
    await working.promise;
    // A's lease passes while it works (DEL does what the expiry does) and process B claims the event
    await one.raw('DEL', `${prefix}evt-taken`);
    const b = new RedisEventStore({ client: two.client, prefix });
    const bClaim = await b.claim('evt-taken', 60_000);
    expect(bClaim).toMatchObject({ status: 'claimed' });
    const bLease = await one.raw('GET', `${prefix}evt-taken`);
    finish.open();

    expect(await answered).toBe(200); // onEvent did its work: a non-2xx would run it again
    const handled = entries.find((entry) => entry.outcome === 'handled' && entry.late !== true);
    // entries carry the error as a plain object (an Error would serialise to {} in a JSON logger)
    expect(handled?.error).toMatchObject({ name: 'RedisStoreError', operation: 'complete' });
    await a.drain(); // the retries of complete give up once A's lease would have passed
    expect(entries.some((entry) => entry.late === true && typeof entry.error?.message === 'string')).toBe(true);
    expect(await one.raw('GET', `${prefix}evt-taken`)).toBe(bLease); // B's claim is untouched
    await b.complete('evt-taken', (bClaim as { lease: unknown }).lease);
    expect(await one.raw('GET', `${prefix}evt-taken`)).toBe('done');
  });

  it('answers 503 without running onEvent while Redis is down, and handles the redelivery once it is back', async () => {
    const prefix = uniquePrefix();
    let calls = 0;
    const handler = handlerOn(one, prefix, () => {
      calls += 1;
    });
    const event = { eventId: 'evt-down', type: 'pix.withdrawal.settled' };
    await server.stop();
    expect(await deliver(handler, event)).toBe(503);
    expect(calls).toBe(0);
    await server.restart();
    expect(await eventually(async () => (await deliver(handler, event)) === 200)).toBe(true);
    expect(calls).toBe(1);
    expect(await deliver(handler, event)).toBe(200);
    expect(calls).toBe(1);
  });
});
