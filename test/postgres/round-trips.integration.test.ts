import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CheckoutClient, type LogEntry } from 'checkout-partner-sdk';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import { createWebhookHandler, signPayload, type WebhookHandler } from 'checkout-partner-sdk/webhooks';
import { usePostgres } from '../helpers/postgres-pool.js';
import { keepEntries } from '../helpers/memory-logger.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueTable } from './drivers.js';

type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;

// What a transactional delivery costs on the wire (pool checkouts, round trips), and the cases
// the folded round trips must still tell apart: a held row, a done row under another lock, a done
// mark that cannot apply, a transaction replaced inside a multi-statement string, ids of any
// characters inlined into statements sent without parameters.
const SECRET = 'whsec-test';
// Nothing is read through it: without resolvers the handler confirms nothing.
const client = new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 's-1' });

async function deliver(handler: WebhookHandler, eventId: string, type = 'otc.trade.settled'): Promise<number> {
  const body = JSON.stringify({ eventId, type });
  const request = new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provider-signature': await signPayload(body, SECRET) },
    body,
  });
  return (await handler.handle(request)).status;
}

/** Counts the store's pool checkouts (`connect()`) and the statements sent on the clients it checked out (one round trip each in pg). */
function counting(pool: pg.Pool): { pool: pg.Pool; counts: { checkouts: number; roundTrips: number; texts: string[] } } {
  const counts = { checkouts: 0, roundTrips: 0, texts: [] as string[] };
  const patched = new WeakSet<pg.PoolClient>();
  const counted = new Proxy(pool, {
    get(target, property) {
      if (property === 'connect') {
        return async (...args: unknown[]) => {
          if (args.length > 0) throw new Error('the store checks out with connect(), never with a callback');
          counts.checkouts++;
          const checkedOut = await target.connect();
          if (!patched.has(checkedOut)) {
            patched.add(checkedOut);
            const query = checkedOut.query.bind(checkedOut) as (...a: unknown[]) => unknown;
            (checkedOut as { query: unknown }).query = (...a: unknown[]) => {
              counts.roundTrips++;
              counts.texts.push(typeof a[0] === 'string' ? a[0] : String((a[0] as { text?: unknown })?.text));
              return query(...a);
            };
          }
          return checkedOut;
        };
      }
      if (property === 'query') {
        return () => {
          throw new Error('the store runs no statement outside its checked-out client');
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { pool: counted, counts };
}

describe('PostgresEventStore (pg, transactional): round trips', () => {
  const db = usePostgres({ max: 4 });

  async function tables(): Promise<{ table: string; effects: string }> {
    const table = uniqueTable();
    const effects = `${table}_fx`;
    await new PostgresEventStore({ pool: db.pool, table }).ensureSchema();
    await db.pool.query(`CREATE TABLE "${effects}" (event_id text NOT NULL)`); // no unique key: doubles show
    return { table, effects };
  }
  const effectsOf = async (effects: string, eventId: string) =>
    (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${effects}" WHERE event_id = $1`, [eventId])).rows[0]!.n;
  const stateOf = async (table: string, eventId: string) =>
    (await db.pool.query<{ state: string; type: string | null }>(`SELECT state, type FROM "${table}" WHERE event_id = $1`, [eventId]))
      .rows[0];

  function handlerOn(
    pool: pg.Pool,
    table: string,
    onEvent: (context: { eventId: string; transaction: pg.PoolClient; call: number }) => Promise<void>,
  ) {
    const entries: WebhookLogEntry[] = [];
    let calls = 0;
    const store = new PostgresEventStore({ pool, table, transactional: true });
    const handler = createWebhookHandler({
      secret: SECRET,
      client,
      logger: keepEntries(entries),
      store,
      onEvent: ({ event, transaction }) => onEvent({ eventId: event.eventId, transaction, call: ++calls }),
    });
    return { handler, entries, store, calls: () => calls };
  }

  it('a delivery takes one pool checkout and at most 3 round trips (its own statements aside), as do a redelivery and a delivery of a held event', async () => {
    const { table, effects } = await tables();
    // the store's own pool: the test's reads go through db.pool, never through a counted client
    const storePool = new pg.Pool({ connectionString: db.server.url, max: 4 });
    storePool.on('error', () => undefined);
    onTestFinished(() => storePool.end());
    const { pool, counts } = counting(storePool);
    const { handler } = handlerOn(pool, table, async ({ eventId, transaction }) => {
      await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
    });
    const measure = async (eventId: string, expected: number) => {
      const before = { checkouts: counts.checkouts, roundTrips: counts.roundTrips, effects: await effectsOf(effects, eventId) };
      expect(await deliver(handler, eventId)).toBe(expected);
      const ownStatements = (await effectsOf(effects, eventId)) - before.effects; // onEvent's INSERT, when it ran
      return { checkouts: counts.checkouts - before.checkouts, roundTrips: counts.roundTrips - before.roundTrips - ownStatements };
    };
    // the first delivery starts the store's background purge (another checkout, not the delivery's): awaited
    expect(await deliver(handler, 'evt-warm')).toBe(200);
    expect(await eventually(() => counts.texts.filter((text) => text.includes('DELETE FROM')).length === 1)).toBe(true);
    const first = counts.texts.length;

    const delivery = await measure('evt-new', 200);
    expect(delivery.checkouts).toBe(1);
    expect(delivery.roundTrips).toBeLessThanOrEqual(3);
    // the txid is recorded in BEGIN's own round trip, and the done mark proves it in COMMIT's
    const [opening, , closing] = counts.texts.slice(first);
    expect(opening).toMatch(/BEGIN ISOLATION LEVEL READ COMMITTED;.*txid_current\(\)/s);
    expect(closing).toMatch(/txid_current\(\) = \d+::bigint.*;\s*COMMIT$/s);

    const redelivery = await measure('evt-new', 200);
    expect(redelivery).toEqual({ checkouts: 1, roundTrips: expect.any(Number) });
    expect(redelivery.roundTrips).toBeLessThanOrEqual(3);

    // another transaction holds the event's row: 409, still one checkout
    await db.pool.query(`INSERT INTO "${table}" (event_id, state) VALUES ('evt-held', 'pending')`);
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "${table}" WHERE event_id = 'evt-held' FOR UPDATE`);
      const held = await measure('evt-held', 409);
      expect(held.checkouts).toBe(1);
      expect(held.roundTrips).toBeLessThanOrEqual(3);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await effectsOf(effects, 'evt-new')).toBe(1);
    expect(await effectsOf(effects, 'evt-held')).toBe(0);
  });

  it('the transaction is bounded by leaseMs on the server and runs at READ COMMITTED, whatever the session defaults', async () => {
    const { table } = await tables();
    const pool = new pg.Pool({
      connectionString: db.server.url,
      max: 1,
      options: '-c default_transaction_isolation=serializable -c statement_timeout=0',
    });
    pool.on('error', () => undefined);
    try {
      const store = new PostgresEventStore({ pool, table, transactional: true });
      let settings: Record<string, unknown> | undefined;
      const result = await store.transact({ eventId: 'evt-bounds', type: 't' }, 12_345, async (transaction) => {
        const { rows } = await transaction.query(
          "SELECT current_setting('statement_timeout') AS statement, current_setting('idle_in_transaction_session_timeout') AS idle, current_setting('transaction_isolation') AS isolation",
        );
        settings = rows[0];
      });
      expect(result).toBe('handled');
      expect(settings).toEqual({ statement: '12345ms', idle: '12345ms', isolation: 'read committed' });
      // SET LOCAL: the session is back to its own settings after the transaction
      expect((await pool.query<{ s: string }>("SELECT current_setting('statement_timeout') AS s")).rows[0]!.s).toBe('0');
    } finally {
      await pool.end();
    }
  });

  it('a done event is answered 200 even while another transaction holds its row (not 409)', async () => {
    const { table, effects } = await tables();
    const { handler, calls } = handlerOn(db.pool, table, async ({ eventId, transaction }) => {
      await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
    });
    expect(await deliver(handler, 'evt-done')).toBe(200);
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "${table}" WHERE event_id = 'evt-done' FOR UPDATE`);
      expect(await deliver(handler, 'evt-done')).toBe(200);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(calls()).toBe(1);
    expect(await effectsOf(effects, 'evt-done')).toBe(1);
  });

  it("onEvent that deletes the event's row: 500 naming it, its writes rolled back, and the redelivery handles the event once", async () => {
    const { table, effects } = await tables();
    const { handler, entries } = handlerOn(db.pool, table, async ({ eventId, transaction, call }) => {
      await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
      if (call === 1) await transaction.query(`DELETE FROM "${table}" WHERE event_id = $1`, [eventId]);
    });
    expect(await deliver(handler, 'evt-deleted')).toBe(500);
    expect(entries[0]).toMatchObject({
      outcome: 'failed',
      error: { name: 'PostgresTransactionError', message: expect.stringMatching(/deleted the event's row/) },
    });
    expect(await effectsOf(effects, 'evt-deleted')).toBe(0); // COMMIT never ran
    expect(await deliver(handler, 'evt-deleted')).toBe(200);
    expect(await effectsOf(effects, 'evt-deleted')).toBe(1);
    expect((await stateOf(table, 'evt-deleted'))?.state).toBe('done');
  });

  it('a transaction replaced inside a multi-statement string (COMMIT; BEGIN) is not committed with the done mark: 500, misuse, the new transaction rolled back', async () => {
    const { table, effects } = await tables();
    const { handler, entries } = handlerOn(db.pool, table, async ({ eventId, transaction, call }) => {
      if (call === 1) await transaction.query('SELECT 1; COMMIT; BEGIN');
      await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
    });
    expect(await deliver(handler, 'evt-replaced')).toBe(500);
    expect(entries[0]).toMatchObject({
      outcome: 'failed',
      error: { name: 'PostgresTransactionError', message: expect.stringMatching(/ROLLBACK TO SAVEPOINT/) },
    });
    expect((await stateOf(table, 'evt-replaced'))?.state).not.toBe('done');
    expect(await effectsOf(effects, 'evt-replaced')).toBe(0); // written in the replacing transaction, rolled back
    expect(await deliver(handler, 'evt-replaced')).toBe(200);
    expect(await effectsOf(effects, 'evt-replaced')).toBe(1);
  });

  it('ids and types of any characters travel inlined without changing (quotes, backslashes, dollar quotes and their tags, comments), also with standard_conforming_strings off', async () => {
    const { table, effects } = await tables();
    const nonStandard = new pg.Pool({
      connectionString: db.server.url,
      max: 2,
      options: '-c standard_conforming_strings=off -c escape_string_warning=off',
    });
    nonStandard.on('error', () => undefined);
    try {
      // dollar quotes of every tag the store could pick, and ids ending with the start of one
      const ids = [
        "evt-'); DROP TABLE x; --",
        "evt-\\'",
        'evt-$$ $q$ */ /*',
        'évt-✓-😀',
        "evt-\\x27'||'",
        'evt- \n\t;COMMIT;',
        'evt-$v$; DROP TABLE x; --',
        'evt-$v$$v1$$v2$',
        'evt-$v',
        'evt-$v1',
        '$v$',
      ];
      for (const pool of [db.pool, nonStandard]) {
        const { handler } = handlerOn(pool, table, async ({ eventId, transaction }) => {
          await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
        });
        for (const [n, base] of ids.entries()) {
          const eventId = pool === db.pool ? base : `${base}-nonstd`; // as given: some end with a tag's start
          const type = `type-'${n}'\\;$$${base}`;
          expect(await deliver(handler, eventId, type), eventId).toBe(200);
          expect(await deliver(handler, eventId, type), eventId).toBe(200);
          expect(await stateOf(table, eventId), eventId).toEqual({ state: 'done', type });
          expect(await effectsOf(effects, eventId), eventId).toBe(1);
        }
      }
    } finally {
      await nonStandard.end();
    }
  });
});
