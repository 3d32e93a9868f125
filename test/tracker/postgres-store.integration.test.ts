import pg from 'pg';
import { readFileSync } from 'node:fs';
import { PostgresStatusStore, PostgresStoreError, PostgresTransactionError } from 'checkout-partner-sdk/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { eventually } from '../helpers/eventually.js';
import { drivers, type Connection } from '../postgres/drivers.js';
import { MAX_TRACKED_EVENT_BYTES } from 'checkout-partner-sdk/tracker';
import { statusStoreContract, statusStoreMetricsContract } from './store-contract.js';

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

let tables = 0;
const uniqueTable = (): string => `status_${process.pid}_${++tables}`;

describe.each(drivers)('PostgresStatusStore with $name', (driver) => {
  let db: Connection;
  beforeAll(() => {
    db = driver.connect(server.url);
  });
  afterAll(() => db?.close());

  const fresh = async (options: { table?: string; retentionSeconds?: number } = {}) => {
    const store = new PostgresStatusStore({
      pool: db.pool,
      table: options.table ?? uniqueTable(),
      ...(options.retentionSeconds ? { retentionSeconds: options.retentionSeconds } : {}),
    });
    await store.ensureSchema();
    return store;
  };

  // the store's clock is PostgreSQL's: time passes for it by waiting
  const underTest = async () => ({
    store: await fresh(),
    advance: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  });

  describe('the StatusStore contract', () => {
    statusStoreContract(underTest);
  });

  describe('what it gives the metrics (dueAt, countWatched)', () => {
    statusStoreMetricsContract(underTest);
  });

  it('keeps one row per record and finds due records through the due_at index, not a scan', async () => {
    const table = uniqueTable();
    const store = await fresh({ table });
    for (let i = 0; i < 200; i += 1) await store.watch('order', `o-${i}`);
    // on the database's clock: o-i due i seconds from now
    const T = Number((await db.exec(`SELECT floor(extract(epoch FROM now()) * 1000)::float8 AS t`))[0]!['t']) - 10_000;
    await db.exec(`UPDATE "${table}" SET due_at = ${T} + substr(external_id, 3)::int * 1000`);
    await store.nudge('order', 'o-5');
    await store.watch('order', 'o-5'); // idempotent: still one row
    expect((await db.exec(`SELECT count(*)::int AS n FROM "${table}"`))[0]!['n']).toBe(200);
    // a fleet's worth of records, most of them due far later or ended
    await db.exec(
      `INSERT INTO "${table}" (kind, external_id, external_id_json, watching, watched_at, due_at, ended_at)
       SELECT 'withdrawal', 'w-' || i, to_json('w-' || i)::text, i % 2 = 0, ${T}, CASE WHEN i % 2 = 0 THEN ${T + 86_400_000} + i END,
         CASE WHEN i % 2 = 1 THEN now() END
       FROM generate_series(1, 20000) AS i`,
    );
    await db.exec(`ANALYZE "${table}"`);
    // the claim's own SELECT as the store runs it: an index scan on due_at that stops after LIMIT rows
    const plan = await db.exec(
      `EXPLAIN (FORMAT JSON) SELECT kind, external_id, due_at FROM "${table}" WHERE due_at IS NOT NULL AND due_at <= ${T + 10_000} ORDER BY due_at LIMIT 8 FOR UPDATE SKIP LOCKED`,
    );
    const text = JSON.stringify(plan);
    expect(text).toContain(`${table}_due_at_idx`);
    expect(text).not.toContain('Seq Scan');
    // countWatched counts through the partial due_at index too (10,200 watched of 20,200 rows)
    const countPlan = JSON.stringify(
      await db.exec(`EXPLAIN (FORMAT JSON) SELECT count(*)::float8 AS watched FROM "${table}" WHERE due_at IS NOT NULL`),
    );
    expect(countPlan).toContain(`${table}_due_at_idx`);
    expect(countPlan).not.toContain('Seq Scan');
    // overdue() reads the overdue rows through the partial owed_at index (200 of 20,200 rows)
    const overduePlan = JSON.stringify(
      await db.exec(`EXPLAIN (FORMAT JSON) SELECT count(*) FROM "${table}" WHERE owed_at IS NOT NULL AND owed_at < ${T + 10_000}`),
    );
    expect(overduePlan).toContain(`${table}_owed_at_idx`);
    expect(overduePlan).not.toContain('Seq Scan');
    expect(await store.countWatched()).toBe(10_200);
    expect((await store.claimDue({ limit: 3, leaseMs: 1_000, owner: 'a' })).map((r) => r.externalId)).toEqual(['o-5', 'o-0', 'o-1']);
  });

  it('reschedules sent together each end their own turn, and only under their own lease', async () => {
    const store = await fresh();
    for (const id of ['o-1', 'o-2', 'o-3', 'o-4']) await store.watch('order', id);
    const claimed = new Map(
      (await store.claimDue({ limit: 4, leaseMs: 60_000, owner: 'a' })).map((record) => [record.externalId, record.lease]),
    );
    expect([...claimed.keys()].sort()).toEqual(['o-1', 'o-2', 'o-3', 'o-4']);
    await store.nudge('order', 'o-2'); // during its turn: due again at once
    const lease = (id: string) => claimed.get(id)!;
    const ended = await Promise.all([
      store.reschedule(lease('o-1'), { failures: 2, next: { delayMs: 600_000 } }),
      store.reschedule(lease('o-2'), { failures: 0, next: { delayMs: 600_000 } }),
      store.reschedule({ ...lease('o-3'), token: `${lease('o-3').token}-not-its-own` }, { failures: 0, next: { delayMs: 0 } }),
      store.reschedule(lease('o-4'), { failures: 0, next: { end: 'final' } }),
      // the same record twice at once: one of the two ends the turn
      store.reschedule(lease('o-1'), { failures: 0, next: { delayMs: 0 } }),
    ]);
    expect(ended.slice(1, 4)).toEqual([true, false, true]);
    expect([ended[0], ended[4]].filter(Boolean)).toHaveLength(1);
    expect((await store.get('order', 'o-1'))?.failures).toBe(ended[0] ? 2 : 0);
    expect((await store.get('order', 'o-4'))?.watching).toBe(false);
    // o-3 is still under its lease; o-2 is due at once (its nudge came during the turn); o-1 too only when its second reschedule won
    const due = (await store.claimDue({ limit: 10, leaseMs: 60_000, owner: 'b' })).map((record) => record.externalId).sort();
    expect(due).toEqual(ended[0] ? ['o-2'] : ['o-1', 'o-2']);
  });

  it("reclaim finds an owner's leases through the partial lease_owner index, never a scan", async () => {
    const table = uniqueTable();
    const store = await fresh({ table });
    for (let i = 0; i < 6; i += 1) await store.watch('order', `o-${i}`);
    const held = await store.claimDue({ limit: 4, leaseMs: 600_000, owner: 'restarted' });
    expect(held).toHaveLength(4);
    // 20,000 other records, 5,000 of them leased by other owners
    await db.exec(
      `INSERT INTO "${table}" (kind, external_id, external_id_json, watching, watched_at, due_at, lease_token, lease_owner, lease_until)
       SELECT 'withdrawal', 'w-' || i, to_json('w-' || i)::text, true, 0, 9e15::bigint, CASE WHEN i % 4 = 0 THEN 'x:' || i END,
         CASE WHEN i % 4 = 0 THEN 'owner-' || (i % 50) END, CASE WHEN i % 4 = 0 THEN 9e15::bigint END
       FROM generate_series(1, 20000) AS i`,
    );
    await db.exec(`ANALYZE "${table}"`);
    const plan = JSON.stringify(
      await db.exec(
        `EXPLAIN (FORMAT JSON) UPDATE "${table}" AS r SET lease_token = NULL WHERE r.lease_owner = 'restarted' AND r.lease_token IS NOT NULL AND r.lease_until > 0`,
      ),
    );
    expect(plan).toContain(`${table}_lease_owner_idx`);
    expect(plan).not.toContain('Seq Scan');
    expect(await store.reclaim('restarted')).toBe(4);
    // due at once, for the restarted process (or anyone)
    expect((await store.claimDue({ limit: 10, leaseMs: 1_000, owner: 'restarted' })).map((r) => r.externalId).sort()).toEqual([
      'o-0',
      'o-1',
      'o-2',
      'o-3',
      'o-4',
      'o-5',
    ]);
    await expect(store.reclaim(42 as never)).rejects.toThrow(TypeError);
  });

  it("claimedAt and every time in a record are the database's clock", async () => {
    const store = await fresh();
    const dbNow = async () => Number((await db.exec(`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t`))[0]!['t']);
    const before = await dbNow();
    await store.watch('order', 'o-1');
    const [record] = await store.claimDue({ limit: 1, leaseMs: 1_000, owner: 'a' });
    const after = await dbNow();
    for (const time of [record!.claimedAt, record!.watchedAt, record!.dueAt!]) {
      expect(time).toBeGreaterThanOrEqual(before);
      expect(time).toBeLessThanOrEqual(after);
    }
  });

  it('a commit that waits for a row whose lease another session takes meanwhile records nothing (the token is re-checked on the row as committed)', async () => {
    const table = uniqueTable();
    const store = await fresh({ table });
    await store.watch('order', 'o-1');
    const [record] = await store.claimDue({ limit: 1, leaseMs: 1_000, owner: 'a' });
    const other = new pg.Client({ connectionString: server.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`SELECT 1 FROM "${table}" WHERE external_id = 'o-1' FOR UPDATE`);
      const committing = store.commit(record!.lease, 'Settled', { failures: 0, next: { end: 'final' } });
      // the commit's statement is waiting for the row; the other session re-leases it and commits
      expect(
        await eventually(
          async () =>
            (
              await db.exec(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%"${table}"%'`)
            )[0]!['n'] === 1,
        ),
      ).toBe(true);
      await other.query(`UPDATE "${table}" SET lease_token = 'b:1', lease_owner = 'b' WHERE external_id = 'o-1'`);
      await other.query('COMMIT');
      expect(await committing).toBe(false);
    } finally {
      await other.end();
    }
    const state = await store.get('order', 'o-1');
    expect(state?.watching).toBe(true);
    expect(state?.handled).toBeUndefined();
  });

  it('keeps the handled status after the watch ends, and purges it after the retention in bounded batches', async () => {
    const table = uniqueTable();
    // a claim starts a purge in the background, which a loaded machine may run late, after the
    // rows were made old below: that store keeps a day; the purges counted run on another instance
    const store = await fresh({ table, retentionSeconds: 86_400 });
    const purger = await fresh({ table, retentionSeconds: 1 });
    for (const id of ['a', 'b', 'c']) {
      await store.watch('order', id);
      const [record] = await store.claimDue({ limit: 1, leaseMs: 1_000, owner: 'x' });
      await store.commit(record!.lease, 'Settled', { failures: 0, next: { end: 'final' } });
    }
    await store.watch('order', 'still-watched');
    expect(await store.get('order', 'a')).toMatchObject({ watching: false, handled: { status: 'Settled' } });
    await db.exec(`UPDATE "${table}" SET ended_at = now() - interval '2 seconds' WHERE ended_at IS NOT NULL`);
    expect(await purger.purgeExpired(2)).toBe(2);
    expect(await purger.purgeExpired()).toBe(1);
    expect(await store.get('order', 'a')).toBeUndefined();
    expect(await store.get('order', 'still-watched')).toMatchObject({ watching: true });
  });

  it('stores ids PostgreSQL text cannot hold, apart from literal ids that look hashed', async () => {
    const store = await fresh();
    const odd = ['nul\u0000id', 'lone\ud800', 'x'.repeat(300), 'sha256:abc'];
    for (const id of odd) await store.watch('order', id);
    const claimed = await store.claimDue({ limit: 10, leaseMs: 1_000, owner: 'a' });
    expect(claimed.map((r) => r.externalId).sort()).toEqual([...odd].sort());
    await store.nudge('order', 'nul\u0000id', { event: { eventId: 'e\u0000', type: 't' } });
    expect((await store.get('order', 'nul\u0000id'))?.event?.eventId).toBe('e\u0000');
  });

  it("keeps a bounded projection of a nudge's event, whatever its size (MAX_TRACKED_EVENT_BYTES)", async () => {
    const table = uniqueTable();
    const store = await fresh({ table });
    const big = {
      eventId: 'e-big',
      type: 'otc.trade.settled',
      tradeId: 't-1',
      payload: { blob: 'x'.repeat(200_000) },
      note: 'y'.repeat(10_000),
    };
    await store.nudge('order', 'o-big', { event: big as never });
    const bytes = Number((await db.exec(`SELECT octet_length(event) AS n FROM "${table}"`))[0]!['n']);
    expect(bytes).toBeLessThanOrEqual(MAX_TRACKED_EVENT_BYTES);
    expect((await store.get('order', 'o-big'))?.event).toMatchObject({ eventId: 'e-big', type: 'otc.trade.settled', tradeId: 't-1' });
    await expect(store.nudge('order', 'o-big', { event: { type: 'no id' } as never })).rejects.toThrow(TypeError);
  });

  it('ensureSchema migrates a table made by 1.0.0: owed_at added, its watched rows owe their read from their due time', async () => {
    const table = uniqueTable();
    // the DDL and the watch of 1.0.0's schemaSql, before owed_at
    for (const statement of [
      `CREATE TABLE "${table}" (
        kind text NOT NULL CHECK (kind IN ('order', 'withdrawal')), external_id text NOT NULL, external_id_json text NOT NULL,
        watching boolean NOT NULL, watched_at bigint NOT NULL, due_at bigint, handled_status text, handled_at bigint,
        nudged_at bigint, event text, nudges bigint NOT NULL DEFAULT 0, lease_nudges bigint, failures integer NOT NULL DEFAULT 0,
        lease_token text, lease_owner text, lease_until bigint, ended_at timestamptz, PRIMARY KEY (kind, external_id))`,
      `CREATE INDEX "${table}_due_at_idx" ON "${table}" (due_at) WHERE due_at IS NOT NULL`,
      `CREATE INDEX "${table}_ended_at_idx" ON "${table}" (ended_at) WHERE ended_at IS NOT NULL`,
      `CREATE INDEX "${table}_lease_owner_idx" ON "${table}" (lease_owner) WHERE lease_owner IS NOT NULL`,
    ])
      await db.exec(statement);
    const now = `floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint`;
    // due 5 s ago (overdue), nudged 2 s ago (due a day early, to be read first), due in an hour
    // (not yet), and a watch that ended
    await db.exec(
      `INSERT INTO "${table}" (kind, external_id, external_id_json, watching, watched_at, due_at, nudged_at, ended_at) VALUES
        ('order', 'late', '"late"', true, ${now} - 60000, ${now} - 5000, NULL, NULL),
        ('order', 'nudged', '"nudged"', true, ${now} - 60000, ${now} - 2000 - 86400000, ${now} - 2000, NULL),
        ('order', 'later', '"later"', true, ${now} - 60000, ${now} + 3600000, NULL, NULL),
        ('withdrawal', 'done', '"done"', false, ${now} - 60000, NULL, NULL, now())`,
    );
    const store = new PostgresStatusStore({ pool: db.pool, table });
    await store.ensureSchema();
    const overdue = await store.overdue();
    expect(overdue.count).toBe(2);
    expect(overdue.oldestMs).toBeGreaterThanOrEqual(5_000);
    expect(overdue.oldestMs).toBeLessThan(60_000);
    // the migrated table works as a new one: records read successfully owe nothing until their next read
    const read = await store.claimDue({ limit: 10, leaseMs: 60_000, owner: 'a' });
    expect(read.map((record) => record.externalId)).toEqual(['nudged', 'late']);
    for (const record of read) expect(await store.commit(record.lease, 'Pending', { failures: 0, next: { delayMs: 60_000 } })).toBe(true);
    expect(await store.overdue()).toEqual({ count: 0, oldestMs: 0 });
    // a row that a 1.0.0 process still running writes (no owed_at) owes its read from its due time once claimed
    await db.exec(
      `INSERT INTO "${table}" (kind, external_id, external_id_json, watching, watched_at, due_at)
       VALUES ('order', 'old-process', '"old-process"', true, ${now} - 3000, ${now} - 3000)`,
    );
    const [old] = await store.claimDue({ limit: 10, leaseMs: 60_000, owner: 'a' });
    expect(old?.externalId).toBe('old-process');
    await store.reschedule(old!.lease, { failures: 1, next: { delayMs: 60_000 } });
    const behind = await store.overdue();
    expect(behind.count).toBe(1);
    expect(behind.oldestMs).toBeGreaterThanOrEqual(3_000);
    await store.ensureSchema(); // again: nothing missing
    const indexes = await db.exec(`SELECT indexname FROM pg_indexes WHERE tablename = $1`, [table]);
    expect(indexes.map((row) => row['indexname'])).toContain(`${table}_owed_at_idx`);
  });

  it('ensureSchema names what is wrong with a table of another shape', async () => {
    const table = uniqueTable();
    await db.exec(`CREATE TABLE "${table}" (kind text, external_id text, watching boolean)`);
    const store = new PostgresStatusStore({ pool: db.pool, table });
    const error = await store.ensureSchema().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect((error as Error).message).toMatch(/column external_id_json is missing/);
    expect((error as Error).message).toMatch(/\(kind, external_id\) is not the primary key/);
    expect((error as Error).message).toMatch(/no index leads with due_at/);
  });

  it('a 63-character table name gets all its indexes (their names are shortened, never cut to the table name)', async () => {
    const table = `s${process.pid}_${driver.name.replace(/\W/g, '')}`.padEnd(63, 'x');
    const store = await fresh({ table });
    await store.ensureSchema(); // again: the shape check finds both indexes
    const indexes = await db.exec(`SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY 1`, [table]);
    const names = indexes.map((row) => String(row['indexname']));
    expect(names).toHaveLength(6); // the primary key's, due_at's, ended_at's, lease_owner's, owed_at's and found_key's
    expect(names.filter((name) => /_(due_at|ended_at|lease_owner|owed_at|found_key)_idx$/.test(name) && name.length <= 63)).toHaveLength(5);
  });

  it('rejects bad options with a TypeError, and postgres.js in transactional mode', () => {
    expect(() => new PostgresStatusStore({ pool: db.pool, table: 'a;drop' })).toThrow(TypeError);
    expect(() => new PostgresStatusStore({ pool: db.pool, retentionSeconds: 0 })).toThrow(TypeError);
    expect(() => new PostgresStatusStore({ pool: db.pool, bogus: 1 } as never)).toThrow(/unknown option "bogus"/);
    if (driver.name === 'postgres.js') {
      expect(() => new PostgresStatusStore({ pool: db.pool, transactional: true as never })).toThrow(PostgresTransactionError);
    } else {
      expect(new PostgresStatusStore({ pool: db.pool, transactional: true as never }).transact).toBeTypeOf('function');
    }
    expect(new PostgresStatusStore({ pool: db.pool }).transact).toBeUndefined();
  });
});

describe('PostgresStatusStore.watch(kind, id, { transaction }) (pg, transactional)', () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
    pool.on('error', () => undefined);
  });
  afterAll(() => pool?.end());

  /** The partner's own transaction: an order row and its watch, then `end` (COMMIT or ROLLBACK). */
  const partnerTransaction = async (store: PostgresStatusStore<pg.Pool, true>, orders: string, id: string, end: 'COMMIT' | 'ROLLBACK') => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO "${orders}" (id) VALUES ($1)`, [id]);
      await store.watch('order', id, { transaction: client });
      // not visible outside the partner's transaction before it commits
      expect(await store.get('order', id)).toBeUndefined();
      await client.query(end);
    } finally {
      client.release();
    }
  };

  it('a committed partner transaction leaves the order and its watch; a rolled-back one leaves neither', async () => {
    const table = uniqueTable();
    const orders = `${table}_orders`;
    const store = new PostgresStatusStore({ pool, table, transactional: true });
    await store.ensureSchema();
    await pool.query(`CREATE TABLE "${orders}" (id text PRIMARY KEY)`);
    await partnerTransaction(store, orders, 'o-committed', 'COMMIT');
    await partnerTransaction(store, orders, 'o-rolled-back', 'ROLLBACK');
    expect((await pool.query(`SELECT id FROM "${orders}"`)).rows).toEqual([{ id: 'o-committed' }]);
    expect(await store.get('order', 'o-committed')).toMatchObject({ watching: true });
    expect(await store.get('order', 'o-rolled-back')).toBeUndefined();
    expect((await store.claimDue({ limit: 10, leaseMs: 1_000, owner: 'a' })).map((r) => r.externalId)).toEqual(['o-committed']);
  });

  it('refuses a pool (it would write outside the transaction) and a transaction on a plain store, with a TypeError', async () => {
    const table = uniqueTable();
    const store = new PostgresStatusStore({ pool, table, transactional: true });
    await store.ensureSchema();
    await expect(store.watch('order', 'o-1', { transaction: pool as never })).rejects.toThrow(/a pool would write the watch outside it/);
    await expect(store.watch('order', 'o-1', { bogus: 1 } as never)).rejects.toThrow(/unknown option "bogus"/);
    const client = await pool.connect();
    try {
      const plain = new PostgresStatusStore({ pool, table });
      await expect(plain.watch('order', 'o-1', { transaction: client as never })).rejects.toThrow(/needs a transactional store/);
    } finally {
      client.release();
    }
    expect(await store.get('order', 'o-1')).toBeUndefined();
  });
});

describe('ensureSchema() on a table 1.0.0 made', () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: server.url, max: 2 });
    pool.on('error', () => undefined);
  });
  afterAll(() => pool?.end());

  const kindChecks = async (table: string): Promise<number> => {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       WHERE c.conrelid = to_regclass($1) AND c.contype = 'c' AND a.attname = 'kind'`,
      [`"${table}"`],
    );
    return rows[0]!.n;
  };

  it('drops the CHECK that pinned the kinds, adds what 1.1 keeps, and keeps every row', async () => {
    const table = uniqueTable();
    const ddl = readFileSync(new URL('./fixtures/status-table-1.0.0.sql', import.meta.url), 'utf8').replaceAll('{{table}}', table);
    await pool.query(ddl);
    await pool.query(
      `INSERT INTO "${table}" (kind, external_id, external_id_json, watching, watched_at, due_at, handled_status, handled_at)
       VALUES ('order', 'o-1', '"o-1"', true, 1, 1, 'Pending', 1)`,
    );
    // as 1.0.0 made it: a kind that is not 'order' or 'withdrawal' is refused at run time
    expect(await kindChecks(table)).toBe(1);
    await expect(
      pool.query(
        `INSERT INTO "${table}" (kind, external_id, external_id_json, watching, watched_at) VALUES ('refund', 'r-1', '"r-1"', true, 1)`,
      ),
    ).rejects.toMatchObject({ code: '23514' });

    const store = new PostgresStatusStore({ pool, table });
    await store.ensureSchema();
    expect(await kindChecks(table)).toBe(0);
    await store.ensureSchema(); // idempotent
    // a kind a later release adds is no longer the SQL's business
    await pool.query(
      `INSERT INTO "${table}" (kind, external_id, external_id_json, watching, watched_at) VALUES ('refund', 'r-1', '"r-1"', true, 1)`,
    );
    expect(await store.get('order', 'o-1')).toMatchObject({ watching: true, handled: { status: 'Pending' } });
    // the column a read's key is kept in came with it
    await store.rememberKey('order', 'o-1', 'tradeId:t-1');
    expect(await store.findByKey('order', 'tradeId:t-1')).toBe('o-1');
    expect(await store.findByKey('withdrawal', 'tradeId:t-1')).toBeUndefined();
  });

  it('the schema the store creates pins no kind', async () => {
    const table = uniqueTable();
    const store = new PostgresStatusStore({ pool, table });
    expect(store.schemaSql).not.toMatch(/CHECK\s*\(\s*kind/i);
    await store.ensureSchema();
    expect(await kindChecks(table)).toBe(0);
  });
});
