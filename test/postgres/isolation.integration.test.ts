import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore, PostgresStatusStore, PostgresStoreError } from 'checkout-partner-sdk/postgres';
import { createWebhookHandler, signPayload, type WebhookHandler } from 'checkout-partner-sdk/webhooks';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { drivers, uniqueTable } from './drivers.js';
import { runTrackerMember } from './tracker-member.js';

// Issue 24: managed servers often run with default_transaction_isolation = 'serializable' (or
// 'repeatable read'). The stores' own transactions run at READ COMMITTED whatever the default, and a
// statement outside them (which runs at the default) is retried on 40001 / 40P01: concurrent
// deliveries and trackers get no 503 and no failed turn from it, and effects happen once.

const SECRET = 'whsec-test';
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

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

describe.each(['serializable', 'repeatable read'])("with default_transaction_isolation = '%s' on the server", (level) => {
  const pools: pg.Pool[] = [];
  const newPool = () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 10, connectionTimeoutMillis: 5_000 });
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`ALTER SYSTEM SET default_transaction_isolation = '${level}'`);
    await admin.query('SELECT pg_reload_conf()');
    await admin.end();
  });
  afterAll(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
  });

  it('the server really runs sessions at that level, and the store runs its transactions at READ COMMITTED', async () => {
    const pool = newPool();
    expect((await pool.query<{ transaction_isolation: string }>('SHOW transaction_isolation')).rows[0]!.transaction_isolation).toBe(level);
    const table = uniqueTable();
    const store = new PostgresEventStore({ pool, table, transactional: true });
    await store.ensureSchema();
    let seen: unknown;
    const handler = createWebhookHandler({
      secret: SECRET,
      client,
      logger: false,
      store,
      onEvent: async ({ transaction }) => {
        seen = (await transaction.query<{ transaction_isolation: string }>('SHOW transaction_isolation')).rows[0]!.transaction_isolation;
      },
    });
    expect(await deliver(handler, { eventId: 'evt-level', type: 'otc.trade.settled' })).toBe(200);
    expect(seen).toBe('read committed');
  });

  it('300 concurrent webhook deliveries (50 events, 6 copies each, 3 receivers) in transactional mode: no 503, every effect once', async () => {
    const table = uniqueTable();
    const effects = `${table}_effects`;
    const receivers = [newPool(), newPool(), newPool()];
    await new PostgresEventStore({ pool: receivers[0]!, table }).ensureSchema();
    await receivers[0]!.query(`CREATE TABLE "${effects}" (event_id text NOT NULL, n serial PRIMARY KEY)`);
    const handlers = receivers.map((pool) =>
      createWebhookHandler({
        secret: SECRET,
        client,
        logger: false,
        store: new PostgresEventStore({ pool, table, transactional: true }),
        onEvent: async ({ event, transaction }) => {
          // a read then a write of a row others write too: the pattern SERIALIZABLE would refuse
          await transaction.query(`SELECT count(*) FROM "${effects}"`);
          await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [event.eventId]);
        },
      }),
    );
    const events = Array.from({ length: 50 }, (_, i) => ({ eventId: `evt-${i}`, type: 'otc.trade.settled' }));
    const statuses = await Promise.all(
      events.flatMap((event) => Array.from({ length: 6 }, (_, copy) => deliver(handlers[copy % 3]!, event))),
    );
    expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
    // the provider redelivers what got 409 (another copy held it): every event ends done, once
    for (let round = 0; round < 20; round++) {
      const redelivered = await Promise.all(events.map((event) => deliver(handlers[round % 3]!, event)));
      expect(redelivered.filter((status) => status !== 200 && status !== 409)).toEqual([]);
      if (redelivered.every((status) => status === 200)) break;
    }
    const rows = (await receivers[0]!.query(`SELECT event_id, count(*)::int AS n FROM "${effects}" GROUP BY event_id`)).rows as {
      n: number;
    }[];
    expect(rows).toHaveLength(50);
    expect(rows.every((row) => row.n === 1)).toBe(true);
  });

  it.each(drivers)(
    'plain mode with $name: 240 concurrent deliveries (40 events, 6 copies): no 503, onEvent once per event',
    async (driver) => {
      const connection = driver.connect(server.url);
      try {
        const table = uniqueTable();
        const store = new PostgresEventStore({ pool: connection.pool, table });
        await store.ensureSchema();
        const calls = new Map<string, number>();
        const handler = createWebhookHandler({
          secret: SECRET,
          client,
          logger: false,
          store,
          onEvent: async ({ event }) => {
            calls.set(event.eventId, (calls.get(event.eventId) ?? 0) + 1);
          },
        });
        const events = Array.from({ length: 40 }, (_, i) => ({ eventId: `evt-${i}`, type: 'otc.trade.settled' }));
        const statuses = await Promise.all(events.flatMap((event) => Array.from({ length: 6 }, () => deliver(handler, event))));
        expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
        expect([...calls.values()].every((n) => n === 1)).toBe(true);
        expect(calls.size).toBe(40);
      } finally {
        await connection.close();
      }
    },
  );

  it(
    '3 transactional tracker processes on 30 records: no failure logged (no serialization failure), every change once',
    { timeout: 90_000 },
    async () => {
      const table = uniqueTable();
      const effects = `${table}_effects`;
      const pool = newPool();
      const store = new PostgresStatusStore({ pool, table, transactional: true });
      await store.ensureSchema();
      await pool.query(`CREATE TABLE "${effects}" (external_id text NOT NULL, status text, owner text NOT NULL)`);
      for (let i = 0; i < 30; i++) await store.watch('order', `o-${i}`);
      const fleet = await Promise.all(
        ['t-1', 't-2', 't-3'].map((owner) => runTrackerMember({ url: server.url, table, effects, owner, count: 30, workMs: 200 })),
      );
      for (const member of fleet) {
        expect(member.exitCode, member.stderr).toBe(0);
        expect(member.failures).toEqual([]);
      }
      expect(fleet.flatMap((member) => member.calls)).toHaveLength(30);
      const rows = (await pool.query(`SELECT external_id, count(*)::int AS n FROM "${effects}" GROUP BY 1`)).rows as { n: number }[];
      expect(rows).toHaveLength(30);
      expect(rows.every((row) => row.n === 1)).toBe(true);
    },
  );

  it('3 transactional status stores claiming 90 records at once: no failed claim or turn, each change committed once', async () => {
    const table = uniqueTable();
    const effects = `${table}_effects`;
    const stores = [newPool(), newPool(), newPool()].map((pool) => new PostgresStatusStore({ pool, table, transactional: true }));
    await stores[0]!.ensureSchema();
    await pools.at(-1)!.query(`CREATE TABLE "${effects}" (external_id text NOT NULL, n serial PRIMARY KEY)`);
    for (let i = 0; i < 90; i++) await stores[i % 3]!.watch('order', `o-${i}`);
    const failures: unknown[] = [];
    let calls = 0;
    const worker = async (store: PostgresStatusStore<pg.Pool, true>, owner: string) => {
      for (let round = 0; round < 200; round++) {
        let claimed;
        try {
          claimed = await store.claimDue({ limit: 4, leaseMs: 30_000, owner });
        } catch (error) {
          failures.push(error);
          continue;
        }
        if (claimed.length === 0 && (await store.countWatched()) === 0) return;
        await Promise.all(
          claimed.map(async (record) => {
            try {
              await store.transact(record.lease, 'Settled', { failures: 0, next: { end: 'final' } }, async (transaction) => {
                calls++;
                await transaction.query(`SELECT count(*) FROM "${effects}"`);
                await transaction.query(`INSERT INTO "${effects}" (external_id) VALUES ($1)`, [record.externalId]);
              });
            } catch (error) {
              failures.push(error);
            }
          }),
        );
      }
    };
    await Promise.all(stores.map((store, i) => worker(store, `tracker-${i}`)));
    expect(failures).toEqual([]);
    expect(calls).toBe(90);
    const rows = (await pools.at(-1)!.query(`SELECT external_id, count(*)::int AS n FROM "${effects}" GROUP BY external_id`)).rows as {
      n: number;
    }[];
    expect(rows).toHaveLength(90);
    expect(rows.every((row) => row.n === 1)).toBe(true);
  });
});

describe('a serialization failure or a deadlock outside a transaction', () => {
  // a trigger makes the real server fail the store's statement with the real SQLSTATE, counting the
  // attempts in a sequence (which a rollback does not undo)
  const failing = async (pool: pg.Pool, table: string, code: '40001' | '40P01', times: number) => {
    await pool.query(`CREATE SEQUENCE "${table}_attempts"`);
    await pool.query(`CREATE FUNCTION "${table}_fail"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('"${table}_attempts"') <= ${times} THEN
          RAISE EXCEPTION 'simulated contention' USING ERRCODE = '${code}';
        END IF;
        RETURN NEW;
      END $$`);
    await pool.query(`CREATE TRIGGER fail BEFORE UPDATE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION "${table}_fail"()`);
    return async () => Number((await pool.query<{ last_value: string }>(`SELECT last_value FROM "${table}_attempts"`)).rows[0]!.last_value);
  };

  it.each(['40001', '40P01'] as const)('%s twice: the third attempt succeeds, the caller sees nothing', async (code) => {
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    pool.on('error', () => undefined);
    try {
      const table = uniqueTable();
      const store = new PostgresStatusStore({ pool, table });
      await store.ensureSchema();
      await store.watch('order', 'o-1');
      const attempts = await failing(pool, table, code, 2);
      expect((await store.claimDue({ limit: 1, leaseMs: 10_000, owner: 'a' })).map((r) => r.externalId)).toEqual(['o-1']);
      expect(await attempts()).toBe(3);
    } finally {
      await pool.end();
    }
  });

  it('one that persists fails after 5 attempts with a PostgresStoreError that says what it is', async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    pool.on('error', () => undefined);
    try {
      const table = uniqueTable();
      const store = new PostgresEventStore({ pool, table });
      await store.ensureSchema();
      const claim = await store.claim('evt-1', 10_000);
      const attempts = await failing(pool, table, '40001', 1_000);
      const error = await store
        .complete('evt-1', claim !== 'done' && claim !== 'in-flight' ? claim.lease : undefined)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PostgresStoreError);
      expect((error as Error).message).toMatch(
        /^PostgreSQL complete failed: a serialization failure \(40001\) in each of 5 attempts: simulated contention\. /,
      );
      expect((error as Error).message).toMatch(/default_transaction_isolation/);
      expect(((error as Error).cause as { code?: string }).code).toBe('40001');
      expect(await attempts()).toBe(5);
    } finally {
      await pool.end();
    }
  });
});
