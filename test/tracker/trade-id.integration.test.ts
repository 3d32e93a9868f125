import type { LogEntry } from 'checkout-partner-sdk';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { RedisStatusStore } from 'checkout-partner-sdk/redis';
import { createEvent, signEvent } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MemoryStatusStore, type StatusStore, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler, MemoryEventStore, type WebhookEvent } from 'checkout-partner-sdk/webhooks';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { pgPool } from '../helpers/postgres-pool.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { flavours, type Connection } from '../redis/clients.js';
import { fakeService, recorder } from './helpers.js';

// An otc.trade.* event carries the trade's id, not the order's: the tracker records each
// settlement.tradeId its reads reveal in the store, and a webhook handler given the tracker finds
// the order by it, in every store and from any process sharing the store.

type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;

const SECRET = 'whsec_trade_id';
// a read every 60 s after the first: a change seen within the test came from the event's nudge
const SLOW = { fastIntervalMs: 60_000, fastForMs: 600_000, maxIntervalMs: 60_000, jitter: 0 };

let redis: RedisServer;
let postgres: PostgresServer;
let redisConnection: Connection;
let pool: pg.Pool;
beforeAll(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  redisConnection = await flavours[0]!.connect(redis.url);
  pool = pgPool(postgres.url, { max: 4 });
});
afterAll(async () => {
  await redisConnection?.close();
  await pool?.end();
  await Promise.all([redis?.stop(), postgres?.stop()]);
});

const trackers: StatusTracker[] = [];
afterEach(async () => {
  await Promise.all(trackers.splice(0).map((tracker) => tracker.drain({ timeoutMs: 3_000 })));
});

let made = 0;
const stores: { name: string; make: () => Promise<StatusStore> }[] = [
  { name: 'MemoryStatusStore', make: async () => new MemoryStatusStore() },
  { name: 'RedisStatusStore', make: async () => new RedisStatusStore({ client: redisConnection.client, prefix: `trade-id-${++made}:` }) },
  {
    name: 'PostgresStatusStore',
    make: async () => {
      const store = new PostgresStatusStore({ pool, table: `trade_id_${process.pid}_${++made}` });
      await store.ensureSchema();
      return store;
    },
  },
];

async function post(handler: { handle(request: Request): Promise<Response> }, event: ReturnType<typeof createEvent>): Promise<number> {
  const signed = await signEvent(event, SECRET);
  const response = await handler.handle(
    new Request('https://partner.test/webhooks', { method: 'POST', headers: signed.headers, body: signed.body }),
  );
  return response.status;
}

describe.each(stores)('an otc.trade.* event without a resolver, on $name', ({ make }) => {
  /** Two trackers (two processes) sharing one store: `reader` reads, the handler is given `other`, which never reads. */
  async function setup(options: { resolveOrderExternalId?: (event: WebhookEvent) => string | undefined } = {}) {
    const service = fakeService();
    const seen = recorder();
    const store = await make();
    const reader = createStatusTracker({ client: service.client, store, onChange: seen.onChange, claimIntervalMs: 10, schedule: SLOW });
    const other = createStatusTracker({ client: service.client, store, onChange: () => undefined, claimIntervalMs: 10, schedule: SLOW });
    trackers.push(reader, other);
    reader.start();
    const entries: WebhookLogEntry[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      client: service.client,
      tracker: other,
      store: new MemoryEventStore(),
      ...options,
      logger: (entry) => {
        if (entry.event === 'webhook.delivery') entries.push(entry);
      },
    });
    return { ...service, seen, store, reader, other, handler, entries };
  }

  it('goes to the watched order whose read revealed its tradeId, read at once, across processes', async () => {
    const { fake, seen, store, reader, other, handler, entries } = await setup();
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
    await reader.watchOrder('o-1');
    await seen.handed(1); // the first read revealed t-1
    expect(await other.recordFor(createEvent('otc.trade.settled', { tradeId: 't-1' }))).toEqual({ kind: 'order', externalId: 'o-1' });

    fake.settleOrder('o-1');
    const event = createEvent('otc.trade.settled', { tradeId: 't-1' });
    expect(await post(handler, event)).toBe(200);
    expect(entries.at(-1)).toMatchObject({ outcome: 'handled', nudged: true });
    await seen.handed(2);
    expect(seen.changes[1]).toMatchObject({
      kind: 'order',
      externalId: 'o-1',
      status: 'Settled',
      source: 'webhook',
      event: { eventId: event.eventId },
    });
    expect(await eventually(async () => (await store.get('order', 'o-1'))?.handled?.status === 'Settled')).toBe(true);
  });

  it('answers 200 and logs an event whose tradeId no read revealed yet, nudging nothing (left to polling)', async () => {
    const { fake, seen, store, reader, handler, entries } = await setup();
    fake.setOrder({ externalId: 'o-2', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-2' } });
    await reader.watchOrder('o-2');
    await seen.handed(1);
    expect(await post(handler, createEvent('otc.trade.settled', { tradeId: 't-unknown' }))).toBe(200);
    expect(entries.at(-1)).toMatchObject({ outcome: 'handled', status: 200, nudged: false });
    // nothing was nudged: o-2 keeps its schedule, and no record was made for the unknown trade
    expect((await store.get('order', 'o-2'))?.nudgedAt).toBeUndefined();
    expect(await reader.recordFor(createEvent('otc.trade.settled', { tradeId: 't-unknown' }))).toBeUndefined();
    // an event without a tradeId, or of a type that carries none, finds nothing either
    expect(await post(handler, createEvent('otc.trade.settled', {}))).toBe(200);
    expect(entries.at(-1)).toMatchObject({ nudged: false });
  });

  it("follows the order's latest tradeId", async () => {
    const { fake, seen, reader, other } = await setup();
    fake.setOrder({ externalId: 'o-3', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-3a' } });
    await reader.watchOrder('o-3');
    await seen.handed(1);
    fake.updateOrder('o-3', { settlement: { status: 'Retrying', tradeId: 't-3b' } });
    await reader.nudge('order', 'o-3');
    await seen.handed(2);
    expect(await other.recordFor(createEvent('otc.trade.cancelled', { tradeId: 't-3b' }))).toEqual({ kind: 'order', externalId: 'o-3' });
  });

  it("asks the partner's resolveOrderExternalId first", async () => {
    const asked: unknown[] = [];
    const { fake, seen, store, reader, handler } = await setup({
      resolveOrderExternalId: (event) => {
        asked.push(event.tradeId);
        return event.tradeId === 't-4' ? 'o-4-own' : undefined;
      },
    });
    fake.setOrder({ externalId: 'o-4', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-4' } });
    fake.setOrder({ externalId: 'o-4-own', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-4' } });
    await reader.watchOrder('o-4');
    await seen.handed(1);
    expect(await post(handler, createEvent('otc.trade.settled', { tradeId: 't-4' }))).toBe(200);
    expect(asked).toEqual(['t-4']);
    expect((await store.get('order', 'o-4-own'))?.nudgedAt).toBeDefined();
    expect((await store.get('order', 'o-4'))?.nudgedAt).toBeUndefined();
  });
});
