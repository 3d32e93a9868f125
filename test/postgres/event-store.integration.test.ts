import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore, PostgresStoreError, PostgresTransactionError } from 'checkout-partner-sdk/postgres';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { drivers, uniqueTable, type Connection } from './drivers.js';
import { eventStoreContract } from '../stores/event-store-contract.js';

describe.each(drivers)('PostgresEventStore ($name)', (driver) => {
  // transactional mode is pg only (a postgres.js sql is refused there, which its own test checks): these cases exist for pg alone, not as skips
  const pgOnly = (name: string, test: () => Promise<void>, timeoutMs?: number) => {
    if (driver.name === 'pg') it(name, test, timeoutMs);
  };
  let server: PostgresServer;
  let db: Connection;
  beforeAll(async () => {
    server = await startPostgres();
    db = driver.connect(server.url);
  });
  afterAll(async () => {
    await db?.close();
    await server?.stop();
  });

  const storeOn = async (options: { table?: string; ttlSeconds?: number } = {}) => {
    const store = new PostgresEventStore({
      pool: db.pool,
      table: options.table ?? uniqueTable(),
      ...(options.ttlSeconds ? { ttlSeconds: options.ttlSeconds } : {}),
    });
    await store.ensureSchema();
    return store;
  };

  it('creates its table with ensureSchema (safe to run concurrently and again) from the SQL it prints', async () => {
    const table = uniqueTable();
    const stores = [0, 1, 2].map(() => new PostgresEventStore({ pool: db.pool, table }));
    await Promise.all(stores.map((store) => store.ensureSchema()));
    await stores[0]!.ensureSchema();
    const columns = await db.exec(`SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`, [
      table,
    ]);
    expect(columns.map((c) => c['column_name'])).toEqual([
      'event_id',
      'type',
      'state',
      'lease_owner',
      'lease_until',
      'first_seen',
      'done_at',
    ]);
    expect(stores[0]!.schemaSql).toContain(`CREATE TABLE IF NOT EXISTS "${table}"`);
    // the printed SQL is what partners put in their migrations: it must run as it is
    const other = uniqueTable();
    for (const statement of new PostgresEventStore({ pool: db.pool, table: other }).schemaSql.split(';\n')) {
      if (statement.trim() !== '') await db.exec(statement);
    }
    const made = await db.exec(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = $1`, [other]);
    expect(made[0]!['n']).toBe(1);
  });

  describe('the EventStore contract', () => {
    // two instances on one table; the store's clock is PostgreSQL's: time passes by waiting
    eventStoreContract(async () => {
      const table = uniqueTable();
      const a = await storeOn({ table });
      const b = new PostgresEventStore({ pool: db.pool, table });
      return { a, b, advance: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };
    });
  });

  it('claims with a lease that is the claim row owner (a UUID)', async () => {
    const store = await storeOn();
    expect(await store.claim('evt-1', 60_000)).toEqual({ status: 'claimed', lease: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('lets a lapsed lease be claimed again by another instance, whose claim the first can no longer settle', async () => {
    const table = uniqueTable();
    const first = await storeOn({ table });
    const second = new PostgresEventStore({ pool: db.pool, table });
    // 2 s: the second claim must come within it, on a loaded machine too
    const old = (await first.claim('evt-lapse', 2_000)) as { lease: string };
    expect(await second.claim('evt-lapse', 2_000)).toBe('in-flight');
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const fresh = (await second.claim('evt-lapse', 60_000)) as { status: string; lease: string };
    expect(fresh.status).toBe('claimed');
    await first.release('evt-lapse', old.lease); // does not free the new claim
    const late = await first.complete('evt-lapse', old.lease).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(PostgresStoreError);
    expect((late as PostgresStoreError).operation).toBe('complete');
    expect(await first.claim('evt-lapse', 60_000)).toBe('in-flight');
    await second.complete('evt-lapse', fresh.lease);
    expect(await first.claim('evt-lapse', 60_000)).toBe('done');
  });

  it('purges expired rows in bounded batches, and a purged event can be claimed again', async () => {
    const table = uniqueTable();
    const store = await storeOn({ table, ttlSeconds: 60 });
    for (const id of ['p-1', 'p-2', 'p-3']) {
      const claim = (await store.claim(id, 60_000)) as { lease: string };
      await store.complete(id, claim.lease);
    }
    await store.claim('p-live', 60_000);
    await db.exec(`UPDATE "${table}" SET first_seen = now() - interval '2 minutes', done_at = now() - interval '2 minutes'`);
    // the store's own background purge (started by the first claim) may take some of them first
    expect(await store.purgeExpired(2)).toBeLessThanOrEqual(2);
    for (let i = 0; i < 3; i++) await store.purgeExpired();
    expect(await store.purgeExpired()).toBe(0);
    expect((await db.exec(`SELECT event_id FROM "${table}"`)).map((row) => row['event_id'])).toEqual(['p-live']); // the live lease stays
    expect(await store.claim('p-1', 60_000)).toEqual({ status: 'claimed', lease: expect.any(String) });
    expect(await store.claim('p-live', 60_000)).toBe('in-flight');
  });

  pgOnly('transact: in-flight while another transaction holds the event, the work own error on failure, done once committed', async () => {
    const table = uniqueTable();
    await storeOn({ table });
    const store = new PostgresEventStore({ pool: db.pool, table, transactional: true });
    const event = { eventId: 'evt-tx', type: 'pix.deposit.received' };
    const failure = new Error('work failed');
    await expect(store.transact(event, 5_000, () => Promise.reject(failure))).rejects.toBe(failure);
    let inner: unknown;
    const outer = await store.transact(event, 5_000, async () => {
      inner = await store.transact(event, 5_000, async () => undefined);
    });
    expect([outer, inner]).toEqual(['handled', 'in-flight']);
    expect(await store.transact(event, 5_000, async () => undefined)).toBe('done');
    const rows = await db.exec(`SELECT state, type, done_at IS NOT NULL AS done FROM "${table}" WHERE event_id = $1`, ['evt-tx']);
    expect(rows).toEqual([{ state: 'done', type: 'pix.deposit.received', done: true }]);
  });

  pgOnly('complete without a lease marks a row left pending by a failed transaction done; a lease of its own still is not', async () => {
    const table = uniqueTable();
    await storeOn({ table });
    const store = new PostgresEventStore({ pool: db.pool, table, transactional: true });
    const failure = new Error('work failed');
    // the row is inserted (committed) before the transaction, which rolls back: it stays pending
    await expect(store.transact({ eventId: 'evt-p', type: 't' }, 5_000, () => Promise.reject(failure))).rejects.toBe(failure);
    expect(await db.exec(`SELECT state FROM "${table}" WHERE event_id = $1`, ['evt-p'])).toEqual([{ state: 'pending' }]);
    await expect(store.complete('evt-p', globalThis.crypto.randomUUID())).rejects.toBeInstanceOf(PostgresStoreError);
    await store.release('evt-p'); // not a claim: nothing to free
    expect(await db.exec(`SELECT state FROM "${table}" WHERE event_id = $1`, ['evt-p'])).toEqual([{ state: 'pending' }]);
    await store.complete('evt-p');
    expect(await store.claim('evt-p', 60_000)).toBe('done');
    expect(await store.transact({ eventId: 'evt-p', type: 't' }, 5_000, async () => undefined)).toBe('done');
  });

  it('takes event ids and types of any characters: NUL, lone surrogates (told apart), long random ids', async () => {
    const table = uniqueTable();
    const plain = await storeOn({ table });
    // PostgreSQL text holds neither NUL nor lone surrogates (drivers turn those into U+FFFD), and a
    // btree entry at most ~2.7 KB: each of these was a 503 on every redelivery, or a false "done"
    const random = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(3_000)), (b) => b.toString(36)).join('');
    const ids = ['a\u0000b', '\ud800', '\ud801', `x\ud800y`, random, `${random}!`];
    for (const id of ids) {
      const claim = await plain.claim(id, 60_000);
      expect(claim, JSON.stringify(id.slice(0, 12))).toMatchObject({ status: 'claimed' });
      expect(await plain.claim(id, 60_000)).toBe('in-flight');
      await plain.complete(id, (claim as { lease: string }).lease);
      expect(await plain.claim(id, 60_000)).toBe('done');
    }
    if (driver.name !== 'pg') return; // transactional mode is pg only
    const transactional = new PostgresEventStore({ pool: db.pool, table, transactional: true });
    const event = { eventId: 'tx\u0000\ud800', type: 'odd\u0000type\udfff' };
    let ran = 0;
    expect(await transactional.transact(event, 5_000, async () => void (ran += 1))).toBe('handled');
    expect(await transactional.transact(event, 5_000, async () => void (ran += 1))).toBe('done');
    expect(await transactional.transact({ eventId: 'tx\u0000\ud801', type: 't' }, 5_000, async () => void (ran += 1))).toBe('handled');
    expect(ran).toBe(2);
  });

  it('a statement past statementTimeoutMs rejects with PostgresStoreError saying truly what became of its connection', async () => {
    const table = uniqueTable();
    await (await storeOn({ table })).claim('evt-held', 60_000);
    const quick = new PostgresEventStore({ pool: db.pool, table, statementTimeoutMs: 200 });
    // another session holds the row: the next claim's upsert waits for it, past statementTimeoutMs
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder =
      driver.name === 'pg'
        ? (async () => {
            const client = await (db.pool as import('pg').Pool).connect();
            await client.query('BEGIN');
            await client.query(`SELECT 1 FROM "${table}" WHERE event_id = 'evt-held' FOR UPDATE`);
            locked();
            await held;
            await client.query('ROLLBACK');
            client.release();
          })()
        : (db.pool as import('postgres').Sql).begin(async (tx) => {
            await tx.unsafe(`SELECT 1 FROM "${table}" WHERE event_id = 'evt-held' FOR UPDATE`);
            locked();
            await held;
          });
    await isLocked;
    try {
      const error = await quick.claim('evt-held', 60_000).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PostgresStoreError);
      expect((error as Error).message).toMatch(/did not answer within 200 ms/);
      // pg's connection is destroyed; postgres.js gives no handle on it, so it is not
      expect((error as Error).message).toMatch(driver.name === 'pg' ? /the connection is destroyed/ : /postgres\.js keeps the connection/);
    } finally {
      letGo();
      await holder;
    }
  });

  it('rejects with PostgresStoreError when the table is missing, naming the operation', async () => {
    const store = new PostgresEventStore({ pool: db.pool, table: uniqueTable() });
    const error = await store.claim('evt-x', 1_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect(error).toMatchObject({ name: 'PostgresStoreError', operation: 'claim' });
    expect((error as Error).message).toMatch(/does not exist/);
  });
});

describe('PostgresEventStore options', () => {
  const pool = { query: async () => ({ rows: [] }), connect: async () => ({ query: async () => ({ rows: [] }), release() {} }) };
  it('throws TypeError for a wrong pool, table, ttlSeconds, transactional or option name', () => {
    expect(() => new PostgresEventStore({ pool: {} as never })).toThrow(/pool must be a pg Pool .* or a postgres.js sql/);
    expect(() => new PostgresEventStore({ pool, table: 'x; DROP TABLE y' })).toThrow(TypeError);
    expect(() => new PostgresEventStore({ pool, table: 'a.b.c' })).toThrow(/table must be a table name/);
    expect(() => new PostgresEventStore({ pool, ttlSeconds: 0 })).toThrow(/ttlSeconds/);
    expect(() => new PostgresEventStore({ pool, transactional: 'yes' as never })).toThrow(/transactional must be true or false/);
    expect(() => new PostgresEventStore({ pool, ttl: 5 } as never)).toThrow(/unknown option "ttl"/);
    expect(new PostgresEventStore({ pool, table: 'billing.webhook_events' }).table).toBe('"billing"."webhook_events"');
  });

  it('refuses a postgres.js sql in transactional mode, naming pg instead', () => {
    const sql = Object.assign(() => undefined, { unsafe: async () => [], begin: async () => undefined });
    // @ts-expect-error the types refuse it too (test/postgres/types.test-d.ts): this is the run-time refusal
    expect(() => new PostgresEventStore({ pool: sql, transactional: true })).toThrow(PostgresTransactionError);
    expect(new PostgresEventStore({ pool: sql }).transactional).toBe(false);
    expect(() => new PostgresEventStore({ pool, table: 'pg_temp.events' })).toThrow(/pg_temp/);
    expect(() => new PostgresEventStore({ pool, statementTimeoutMs: 0 })).toThrow(/statementTimeoutMs/);
  });

  it('has transact only in transactional mode', () => {
    expect(new PostgresEventStore({ pool }).transact).toBeUndefined();
    expect(typeof new PostgresEventStore({ pool, transactional: true }).transact).toBe('function');
  });
});
