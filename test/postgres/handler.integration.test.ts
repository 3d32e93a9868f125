import { once } from 'node:events';
import { createServer as createNetServer, connect as connectNet, type AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutClient, type LogEntry } from 'checkout-partner-sdk';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import { createWebhookHandler, signPayload, type WebhookHandler } from 'checkout-partner-sdk/webhooks';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { keepEntries } from '../helpers/memory-logger.js';
import { eventually } from '../helpers/eventually.js';
import { drivers, uniqueTable, type Connection } from './drivers.js';

type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;

const SECRET = 'whsec-test';
// Nothing is read through it: without resolvers the handler confirms nothing.
const client = new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 's-1' });

async function deliver(handler: WebhookHandler, event: object): Promise<number> {
  const body = JSON.stringify(event);
  const request = new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provider-signature': await signPayload(body, SECRET) },
    body,
  });
  return (await handler.handle(request)).status;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe.each(drivers)('createWebhookHandler with PostgresEventStore ($name)', (driver) => {
  // transactional mode is pg only (a postgres.js sql is refused there, which its own test checks): these cases exist for pg alone, not as skips
  const pgOnly = (name: string, test: () => Promise<void>, timeoutMs?: number) => {
    if (driver.name === 'pg') it(name, test, timeoutMs);
  };
  let server: PostgresServer;
  let one: Connection;
  let two: Connection;
  beforeAll(async () => {
    server = await startPostgres();
    one = driver.connect(server.url);
    two = driver.connect(server.url);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await server?.stop();
  });

  /** A fresh event table and an effects table that onEvent writes to. */
  async function tables(): Promise<{ table: string; effects: string }> {
    const table = uniqueTable();
    const effects = `${table}_effects`;
    await new PostgresEventStore({ pool: one.pool, table }).ensureSchema();
    await one.exec(`CREATE TABLE "${effects}" (event_id text NOT NULL, n serial PRIMARY KEY)`);
    return { table, effects };
  }
  const effectCount = async (effects: string, eventId: string) =>
    Number((await one.exec(`SELECT count(*)::int AS n FROM "${effects}" WHERE event_id = $1`, [eventId]))[0]!['n']);

  /**
   * A handler on `one` whose transactional store uses `table` and whose onEvent writes the event's
   * effect row through `transaction`, then runs `afterWrite` (with the call's number); it counts calls.
   */
  function effectHandler(
    { table, effects }: { table: string; effects: string },
    afterWrite: (call: number, transaction: unknown, eventId: string) => Promise<void>,
    options: { responseTimeoutMs?: number; leaseMs?: number; maxHandlingMs?: number } = {},
  ) {
    const entries: WebhookLogEntry[] = [];
    let calls = 0;
    const handler = createWebhookHandler({
      secret: SECRET,
      client,
      ...options,
      logger: keepEntries(entries),
      store: new PostgresEventStore({ pool: one.pool, table, transactional: true }),
      onEvent: async ({ event, transaction }) => {
        calls++;
        await one.write(transaction, `INSERT INTO "${effects}" (event_id) VALUES ($1)`, [event.eventId]);
        await afterWrite(calls, transaction, event.eventId);
      },
    });
    return { handler, entries, calls: () => calls };
  }

  // postgres.js is refused in transactional mode (faults.integration.test.ts): plain mode only there
  describe.each(driver.name === 'pg' ? [false, true] : [false])('transactional: %s', (transactional) => {
    it('runs onEvent once for 100 concurrent copies of an event across two handler instances', async () => {
      const { table, effects } = await tables();
      const ran: string[] = [];
      const handlerOn = (connection: Connection) =>
        createWebhookHandler({
          logger: false,
          secret: SECRET,
          client,
          store: new PostgresEventStore({ pool: connection.pool, table, transactional }),
          onEvent: async (context) => {
            ran.push(context.event.eventId);
            const transaction = (context as { transaction?: unknown }).transaction;
            if (transactional)
              await connection.write(transaction, `INSERT INTO "${effects}" (event_id) VALUES ($1)`, [context.event.eventId]);
            else await connection.exec(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [context.event.eventId]);
            await sleep(50); // hold the claim while the other copies arrive
          },
        });
      const a = handlerOn(one);
      const b = handlerOn(two);
      const event = { eventId: 'evt-100', type: 'otc.trade.settled', tradeId: 't-1' };
      const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => deliver(i % 2 === 0 ? a : b, event)));
      expect(ran).toEqual(['evt-100']);
      expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
      // the provider's retries of the 409s now get 200 without running it again
      expect(await deliver(a, event)).toBe(200);
      expect(await deliver(b, event)).toBe(200);
      expect(ran).toEqual(['evt-100']);
      expect(await effectCount(effects, 'evt-100')).toBe(1);
    });

    it('answers 503 when PostgreSQL is down, and handles the redelivery once it is back', async () => {
      const { table } = await tables();
      const entries: WebhookLogEntry[] = [];
      const handler = createWebhookHandler({
        secret: SECRET,
        client,
        store: new PostgresEventStore({ pool: one.pool, table, transactional }),
        onEvent: () => undefined,
        logger: keepEntries(entries),
      });
      await server.pause();
      try {
        expect(await deliver(handler, { eventId: 'evt-down', type: 'pix.deposit.confirmed' })).toBe(503);
      } finally {
        await server.start();
      }
      expect(entries[0]).toMatchObject({ outcome: 'store-unavailable', status: 503, eventId: 'evt-down' });
      expect(entries[0]!.error).toMatchObject({ name: 'PostgresStoreError', operation: expect.any(String) });
      expect(await eventually(async () => (await deliver(handler, { eventId: 'evt-down', type: 'pix.deposit.confirmed' })) === 200)).toBe(
        true,
      );
      // the restart ended every session, the shared pools' idle ones too (57P01 on their next use):
      // the next tests start on fresh pools rather than depend on when each pool notices
      await Promise.all([one.close(), two.close()]);
      one = driver.connect(server.url);
      two = driver.connect(server.url);
    });
  });

  pgOnly(
    'transactional: a connection lost mid-COMMIT (committed, unacknowledged) is answered 503, and the redelivery 200 without running onEvent again',
    async () => {
      const { table, effects } = await tables();
      // a proxy that passes the COMMIT on to PostgreSQL (the query "COMMIT", not BEGIN's "READ COMMITTED"), then drops the connection before its answer
      const target = Number(new URL(server.url).port);
      let cut = false;
      const proxy = createNetServer((inbound) => {
        const outbound = connectNet(target, '127.0.0.1');
        let dropping = false;
        inbound.on('error', () => undefined);
        outbound.on('error', () => undefined);
        inbound.on('data', (chunk: Buffer) => {
          outbound.write(chunk);
          if (!cut && /\bcommit\0/i.test(chunk.toString('latin1'))) {
            cut = true;
            dropping = true;
            setTimeout(() => {
              inbound.destroy();
              outbound.destroy();
            }, 300);
          }
        });
        outbound.on('data', (chunk: Buffer) => {
          if (!dropping) inbound.write(chunk);
        });
        inbound.on('close', () => outbound.destroy());
        outbound.on('close', () => inbound.destroy());
      });
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      const proxied = driver.connect(server.url.replace(`:${target}/`, `:${(proxy.address() as AddressInfo).port}/`));
      try {
        const entries: WebhookLogEntry[] = [];
        let calls = 0;
        const handler = createWebhookHandler({
          secret: SECRET,
          client,
          logger: keepEntries(entries),
          store: new PostgresEventStore({ pool: proxied.pool, table, transactional: true }),
          onEvent: async ({ event, transaction }) => {
            calls++;
            await proxied.write(transaction, `INSERT INTO "${effects}" (event_id) VALUES ($1)`, [event.eventId]);
          },
        });
        const event = { eventId: 'evt-ack-lost', type: 'otc.trade.settled' };
        expect(await deliver(handler, event)).toBe(503);
        expect(cut).toBe(true);
        expect(entries[0]).toMatchObject({ outcome: 'store-unavailable', eventId: 'evt-ack-lost' });
        expect(await effectCount(effects, 'evt-ack-lost')).toBe(1); // it did commit
        expect(await deliver(handler, event)).toBe(200);
        expect(calls).toBe(1);
        expect(entries[1]).toMatchObject({ outcome: 'duplicate', status: 200 });
      } finally {
        await proxied.close();
        proxy.close();
      }
    },
  );

  pgOnly(
    'transactional: rolls back the partner writes with the claim when onEvent throws (500), and the redelivery runs it again',
    async () => {
      const { effects, ...rest } = await tables();
      const { handler, calls } = effectHandler({ effects, ...rest }, async (call) => {
        if (call === 1) throw new Error('partner bug');
      });
      const event = { eventId: 'evt-rollback', type: 'otc.trade.settled' };
      expect(await deliver(handler, event)).toBe(500);
      expect(await effectCount(effects, 'evt-rollback')).toBe(0);
      expect(await deliver(handler, event)).toBe(200);
      expect(await deliver(handler, event)).toBe(200);
      expect(calls()).toBe(2);
      expect(await effectCount(effects, 'evt-rollback')).toBe(1);
    },
  );

  // postgres.js 3.4 may crash the process when PostgreSQL ends a session inside sql.begin
  // (porsager/postgres#1208), so session loss is tested with pg; the soak kills real processes
  pgOnly(
    'transactional: a connection lost mid-onEvent (as when the process dies) rolls back both, and the redelivery runs it once',
    async () => {
      const { effects, ...rest } = await tables();
      const { handler, calls } = effectHandler({ effects, ...rest }, async (call) => {
        if (call !== 1) return;
        // another session ends this one, as PostgreSQL does for a process that died
        await two.exec(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE 'INSERT INTO "${effects}"%'`,
        );
        await sleep(100);
      });
      const event = { eventId: 'evt-killed', type: 'otc.trade.settled' };
      expect([500, 503]).toContain(await deliver(handler, event));
      expect(await effectCount(effects, 'evt-killed')).toBe(0);
      // answered as soon as the session died: its backend may hold the row a moment longer (409 meanwhile)
      expect(await eventually(async () => (await deliver(handler, event)) === 200, 5_000)).toBe(true);
      expect(calls()).toBe(2);
      expect(await effectCount(effects, 'evt-killed')).toBe(1);
    },
  );

  pgOnly(
    'transactional: past responseTimeoutMs answers 503 while the transaction goes on; copies get 409, other events go on, drain waits for the commit',
    async () => {
      const { table, effects } = await tables();
      const held = gate();
      const handler = createWebhookHandler({
        logger: false,
        secret: SECRET,
        client,
        responseTimeoutMs: 200,
        store: new PostgresEventStore({ pool: one.pool, table, transactional: true }),
        onEvent: async ({ event, transaction }) => {
          await one.write(transaction, `INSERT INTO "${effects}" (event_id) VALUES ($1)`, [event.eventId]);
          if (event.eventId === 'evt-slow') await held.promise;
        },
      });
      const slow = { eventId: 'evt-slow', type: 'otc.trade.settled' };
      expect(await deliver(handler, slow)).toBe(503);
      expect(await deliver(handler, slow)).toBe(409); // its row is locked, not the table:
      expect(await deliver(handler, { eventId: 'evt-other', type: 'otc.trade.settled' })).toBe(200);
      let drained = false;
      const draining = handler.drain().then(() => {
        drained = true;
      });
      await sleep(100);
      expect(drained).toBe(false);
      held.open();
      await draining;
      expect(await effectCount(effects, 'evt-slow')).toBe(1);
      const after = createWebhookHandler({
        logger: false,
        secret: SECRET,
        client,
        store: new PostgresEventStore({ pool: two.pool, table, transactional: true }),
        onEvent: () => undefined,
      });
      expect(await deliver(after, slow)).toBe(200);
      expect(await effectCount(effects, 'evt-slow')).toBe(1);
    },
  );

  pgOnly('transactional: a transaction idle past leaseMs loses its session and writes, and a redelivery then takes the event', async () => {
    const { effects, ...rest } = await tables();
    const hung = async (call: number) => {
      if (call === 1) await sleep(1_200); // hung: PostgreSQL ends the session at 500 ms idle
    };
    // maxHandlingMs past the lease: PostgreSQL, not the SDK's own give-up (which races it at 500 ms), ends this one
    const options = { responseTimeoutMs: 300, leaseMs: 500, maxHandlingMs: 2_000 };
    const { handler, entries, calls } = effectHandler({ effects, ...rest }, hung, options);
    const event = { eventId: 'evt-hung', type: 'otc.trade.settled' };
    expect(await deliver(handler, event)).toBe(503);
    await sleep(700);
    expect(await deliver(handler, event)).toBe(200); // the hung one no longer holds the row
    await handler.drain();
    expect(calls()).toBe(2);
    expect(await effectCount(effects, 'evt-hung')).toBe(1);
    expect(entries.find((entry) => entry.late)).toMatchObject({ eventId: 'evt-hung', outcome: 'store-unavailable' });
  });

  pgOnly('transactional: an onEvent hung past leaseMs gives its pool connection back once PostgreSQL ends its session', async () => {
    const { table } = await tables();
    // one connection: the hung delivery must not keep it from every delivery after it
    const pool = new pg.Pool({ connectionString: server.url, max: 1, connectionTimeoutMillis: 2_000 });
    pool.on('error', () => undefined);
    const hung = gate();
    const entries: WebhookLogEntry[] = [];
    let signal: AbortSignal | undefined;
    const handler = createWebhookHandler({
      secret: SECRET,
      client,
      responseTimeoutMs: 300,
      leaseMs: 500,
      maxHandlingMs: 5_000, // PostgreSQL ending the session, not the SDK's own give-up, lets it go here
      logger: keepEntries(entries),
      store: new PostgresEventStore({ pool, table, transactional: true }),
      onEvent: async (context) => {
        if (context.event.eventId !== 'evt-hangs') return;
        signal = context.signal;
        await hung.promise; // e.g. a fetch with no timeout
      },
    });
    try {
      expect(await deliver(handler, { eventId: 'evt-hangs', type: 'otc.trade.settled' })).toBe(503);
      await sleep(900); // PostgreSQL ends the idle session at 500 ms
      expect(await deliver(handler, { eventId: 'evt-next', type: 'otc.trade.settled' })).toBe(200);
      expect(pool.totalCount).toBeLessThanOrEqual(1);
      // its transaction (the claim) gone, the hung onEvent is let go: its signal aborted, nothing in hand
      expect(signal?.reason).toMatchObject({ name: 'HandlingAbandonedError', reason: 'lease-lost' });
      expect(await handler.drain({ timeoutMs: 100 })).toEqual({ drained: true, inHand: [] });
      // its session was gone: nothing was committed, so it is answered as a store failure
      expect(entries.find((entry) => entry.late)).toMatchObject({ eventId: 'evt-hangs', outcome: 'store-unavailable' });
    } finally {
      hung.open();
      await pool.end();
    }
  });

  pgOnly(
    'transactional: a statement running past leaseMs is cancelled and its writes rolled back (failed), and the redelivery runs it',
    async () => {
      const { table, effects } = await tables();
      const stuck = async (call: number, transaction: unknown) => {
        if (call === 1) await one.write(transaction, 'SELECT pg_sleep(5)'); // hung statement: cancelled at 2 s
      };
      const { handler, entries } = effectHandler({ table, effects }, stuck, { responseTimeoutMs: 2_000, leaseMs: 2_000 });
      const event = { eventId: 'evt-stuck', type: 'otc.trade.settled' };
      const started = Date.now();
      expect(await deliver(handler, event)).toBe(503); // responseTimeoutMs, as long as the lease here
      await handler.drain();
      expect(Date.now() - started).toBeLessThan(4_000); // not the 5 s of pg_sleep
      expect(entries.find((entry) => entry.late)).toMatchObject({ eventId: 'evt-stuck', outcome: 'failed' });
      expect(await effectCount(effects, 'evt-stuck')).toBe(0);
      const after = createWebhookHandler({
        logger: false,
        secret: SECRET,
        client,
        store: new PostgresEventStore({ pool: two.pool, table, transactional: true }),
        onEvent: ({ event: redelivered, transaction }) =>
          two.write(transaction, `INSERT INTO "${effects}" (event_id) VALUES ($1)`, [redelivered.eventId]),
      });
      expect(await deliver(after, event)).toBe(200);
      expect(await effectCount(effects, 'evt-stuck')).toBe(1);
    },
  );
});
