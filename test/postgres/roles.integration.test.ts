import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore, PostgresStatusStore, PostgresStoreError } from 'checkout-partner-sdk/postgres';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { uniqueTable } from './drivers.js';
import { KINDS } from '../helpers/kinds.js';

// Issue 24: production roles often cannot CREATE (migrations run as another role). ensureSchema()
// checks the table first and creates only what is missing: with the tables made from schemaSql, a
// role with SELECT, INSERT, UPDATE and DELETE succeeds; without them, the error names the right.

let server: PostgresServer;
let admin: pg.Pool;
const pools: pg.Pool[] = [];
/** A pool that logs in as `role` (the test server trusts local connections). */
const poolAs = (role: string) => {
  const pool = new pg.Pool({
    connectionString: server.url.replace('postgres://postgres@', `postgres://${role}@`),
    max: 4,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', () => undefined);
  pools.push(pool);
  return pool;
};

beforeAll(async () => {
  server = await startPostgres();
  admin = new pg.Pool({ connectionString: server.url, max: 2 });
  admin.on('error', () => undefined);
  // PostgreSQL 15 gives PUBLIC no CREATE on schema public; older versions did: take it away for all
  await admin.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
  await admin.query('CREATE ROLE app_dml LOGIN');
  await admin.query('CREATE ROLE app_readonly LOGIN');
  await admin.query('CREATE SCHEMA checkout');
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await admin?.end();
  await server?.stop();
});

const makers = [
  { name: 'PostgresEventStore', make: (pool: pg.Pool, table: string) => new PostgresEventStore({ pool, table }) },
  { name: 'PostgresStatusStore', make: (pool: pg.Pool, table: string) => new PostgresStatusStore({ pool, table }) },
] as const;

describe.each(makers)('ensureSchema() of $name for a role without CREATE', ({ make }) => {
  it('names the missing privilege when the table does not exist (not "does not have the shape")', async () => {
    const error = await make(poolAs('app_dml'), uniqueTable())
      .ensureSchema()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    const message = (error as Error).message;
    expect(message).toContain('permission denied for schema public');
    expect(message).toContain('42501');
    expect(message).toMatch(/needs CREATE on schema public to create what is missing \(the table does not exist\)/);
    expect(message).toMatch(/schemaSql in your migrations/);
    expect(message).not.toMatch(/does not have the shape/);
    expect(((error as Error).cause as { code?: string }).code).toBe('42501');
  });

  it('succeeds when migrations made the table from schemaSql and the role has SELECT, INSERT, UPDATE, DELETE', async () => {
    for (const table of [uniqueTable(), `checkout.${uniqueTable()}`]) {
      const quoted = table
        .split('.')
        .map((part) => `"${part}"`)
        .join('.');
      await admin.query(make(admin, table).schemaSql); // the migration, as the schema's owner
      await admin.query('GRANT USAGE ON SCHEMA checkout TO app_dml');
      await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${quoted} TO app_dml`);
      const store = make(poolAs('app_dml'), table);
      await store.ensureSchema();
      await store.ensureSchema(); // every start
    }
  });

  it('names the table rights the role lacks', async () => {
    const table = uniqueTable();
    await admin.query(make(admin, table).schemaSql);
    await admin.query(`GRANT SELECT, INSERT ON "${table}" TO app_readonly`);
    const error = await make(poolAs('app_readonly'), table)
      .ensureSchema()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect((error as Error).message).toMatch(/the role "app_readonly" lacks UPDATE, DELETE on the table/);
    expect((error as Error).message).toMatch(/GRANT SELECT, INSERT, UPDATE, DELETE ON/);
  });

  it("names USAGE when the role cannot even look into the table's schema", async () => {
    await admin.query('CREATE SCHEMA IF NOT EXISTS closed');
    const error = await make(poolAs('app_readonly'), `closed.${uniqueTable()}`)
      .ensureSchema()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect((error as Error).message).toMatch(/permission denied for schema closed/);
    expect((error as Error).message).toMatch(/needs USAGE on schema closed/);
  });
});

describe('a role with only SELECT, INSERT, UPDATE, DELETE runs the stores', () => {
  it('the event store (plain and transactional) and the status store (plain and transactional)', async () => {
    const events = uniqueTable();
    const records = uniqueTable();
    await admin.query(new PostgresEventStore({ pool: admin, table: events }).schemaSql);
    await admin.query(new PostgresStatusStore({ pool: admin, table: records }).schemaSql);
    await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON "${events}", "${records}" TO app_dml`);
    const pool = poolAs('app_dml');

    const plain = new PostgresEventStore({ pool, table: events });
    await plain.ensureSchema();
    const claim = await plain.claim('evt-1', 10_000);
    expect(claim).toMatchObject({ status: 'claimed' });
    await plain.complete('evt-1', claim !== 'done' && claim !== 'in-flight' ? claim.lease : undefined);
    expect(await plain.claim('evt-1', 10_000)).toBe('done');
    const transactional = new PostgresEventStore({ pool, table: events, transactional: true });
    expect(await transactional.transact({ eventId: 'evt-2', type: 't' }, 10_000, async () => undefined)).toBe('handled');
    expect(await plain.purgeExpired()).toBe(0);

    const status = new PostgresStatusStore({ pool, table: records, transactional: true });
    await status.ensureSchema();
    await status.watch('order', 'o-1');
    await status.nudge('order', 'o-1');
    const [record] = await status.claimDue({ limit: 1, leaseMs: 10_000, owner: 'a' });
    expect(await status.extend(record!.lease, { leaseMs: 10_000 })).toBe(true);
    expect(await status.transact(record!.lease, 'Settled', { failures: 0, next: { end: 'final' } }, async () => undefined)).toBe(true);
    expect(await status.get('order', 'o-1')).toMatchObject({ watching: false, handled: { status: 'Settled' } });
    expect(await status.reclaim('a')).toBe(0);
    expect(await status.purgeExpired()).toBe(0);
  });

  it('an index added by a newer version and missing from the migrated table is named, with who may add it', async () => {
    const table = uniqueTable();
    await admin.query(new PostgresStatusStore({ pool: admin, table }).schemaSql);
    await admin.query(`DROP INDEX "${table}_lease_owner_idx"`);
    await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON "${table}" TO app_dml`);
    const error = await new PostgresStatusStore({ pool: poolAs('app_dml'), table }).ensureSchema().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect((error as Error).message).toMatch(/42501/);
    expect((error as Error).message).toMatch(/only the table's owner can add what is missing \(no index leads with lease_owner/);
    await new PostgresStatusStore({ pool: admin, table }).ensureSchema(); // the owner adds it
    await new PostgresStatusStore({ pool: poolAs('app_dml'), table }).ensureSchema();
  });

  it('a table migrated by 1.0.0 lacks owed_at: named for a role that does not own it, added by its owner', async () => {
    const table = uniqueTable();
    await admin.query(new PostgresStatusStore({ pool: admin, table }).schemaSql);
    await admin.query(`ALTER TABLE "${table}" DROP COLUMN owed_at`); // its index goes with it: the 1.0.0 shape
    await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON "${table}" TO app_dml`);
    const error = await new PostgresStatusStore({ pool: poolAs('app_dml'), table }).ensureSchema().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect((error as Error).message).toMatch(
      /only the table's owner can add what is missing \(column owed_at is missing \(expected bigint\)/,
    );
    await new PostgresStatusStore({ pool: admin, table }).ensureSchema();
    const store = new PostgresStatusStore({ pool: poolAs('app_dml'), table });
    await store.ensureSchema();
    expect(await store.overdue()).toEqual({ count: 0, oldestMs: 0 });
  });
});

// Issue 45: a status table made by 1.0.0 has CHECK (kind IN ('order', 'withdrawal')). Its owner's
// ensureSchema() drops it; a role that does not own the table cannot, which is harmless while the
// CHECK refuses no kind of this version and an error naming the SQL to run once it does (a watch of
// that kind would fail later with a bare check violation).
describe('a status table whose CHECK on kind only its owner can drop', () => {
  /** A table as migrations made it from schemaSql, with a 1.0.0-style CHECK naming `kinds`, the DML rights granted. */
  const pinnedTable = async (kinds: readonly string[]): Promise<string> => {
    const table = uniqueTable();
    await admin.query(new PostgresStatusStore({ pool: admin, table }).schemaSql);
    await admin.query(
      `ALTER TABLE "${table}" ADD CONSTRAINT "${table}_kind_check" CHECK (kind IN (${kinds.map((k) => `'${k}'`).join(', ')}))`,
    );
    await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON "${table}" TO app_dml`);
    return table;
  };

  it('is left alone while it names every kind of this version: ensureSchema() passes and every kind is watched', async () => {
    const table = await pinnedTable(KINDS);
    const store = new PostgresStatusStore({ pool: poolAs('app_dml'), table });
    await store.ensureSchema();
    for (const kind of KINDS) await store.watch(kind, 'x-1');
    expect((await admin.query(`SELECT count(*)::int AS n FROM pg_constraint WHERE conname = '${table}_kind_check'`)).rows[0]).toEqual({
      n: 1,
    });
  });

  it('once it refuses a kind of this version, ensureSchema() fails with the SQL for the owner, which then makes it pass', async () => {
    const [kept, ...refused] = KINDS;
    const table = await pinnedTable([kept!]);
    const store = new PostgresStatusStore({ pool: poolAs('app_dml'), table });
    const error = await store.ensureSchema().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect(error).toMatchObject({ operation: 'schema', cause: { code: '42501' } });
    const message = (error as Error).message;
    for (const kind of refused) expect(message).toContain(`"${kind}"`);
    expect(message).not.toContain(`"${kept!}",`);
    const sql = /Run as the owner: (.+;) \(or the store's schemaSql in your migrations\)$/.exec(message)?.[1];
    expect(sql).toBe(`ALTER TABLE "${table}" DROP CONSTRAINT "${table}_kind_check";`);
    await admin.query(sql!); // what the message says, as the owner
    await store.ensureSchema();
    for (const kind of KINDS) await store.watch(kind, 'x-1');
  });
});
