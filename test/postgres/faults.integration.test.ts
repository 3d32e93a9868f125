import pg from 'pg';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { CheckoutClient, type LogEntry } from 'checkout-partner-sdk';
import { PostgresEventStore, PostgresStoreError, PostgresTransactionError } from 'checkout-partner-sdk/postgres';
import { createWebhookHandler, signPayload, type WebhookHandler } from 'checkout-partner-sdk/webhooks';
import { usePostgres } from '../helpers/postgres-pool.js';
import { keepEntries } from '../helpers/memory-logger.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueTable } from './drivers.js';

type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;

// Faults of a real database network, with pg (postgres.js is refused in transactional mode).
const SECRET = 'whsec-test';
const client = new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 's-1' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function deliver(handler: WebhookHandler, eventId: string): Promise<number> {
  const body = JSON.stringify({ eventId, type: 'otc.trade.settled' });
  const request = new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provider-signature': await signPayload(body, SECRET) },
    body,
  });
  return (await handler.handle(request)).status;
}

describe('PostgresEventStore (pg, transactional) under faults', () => {
  const db = usePostgres({ max: 4 });

  const effectsOf = async (effects: string, eventId: string) =>
    (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${effects}" WHERE event_id = $1`, [eventId])).rows[0]!.n;

  async function tables(): Promise<{ table: string; effects: string }> {
    const table = uniqueTable();
    const effects = `${table}_fx`;
    await new PostgresEventStore({ pool: db.pool, table }).ensureSchema();
    await db.pool.query(`CREATE TABLE "${effects}" (event_id text NOT NULL)`); // no unique key: doubles show
    return { table, effects };
  }

  function handlerOn(
    pool: pg.Pool,
    table: string,
    onEvent: (context: { eventId: string; transaction: pg.PoolClient }) => Promise<void>,
    options: { leaseMs?: number; responseTimeoutMs?: number } = {},
  ) {
    const entries: WebhookLogEntry[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      client,
      ...options,
      logger: keepEntries(entries),
      store: new PostgresEventStore({ pool, table, transactional: true }),
      onEvent: ({ event, transaction }) => onEvent({ eventId: event.eventId, transaction }),
    });
    return { handler, entries };
  }

  it(
    'a blackholed network: deliveries fail within the lease, the dead connections are destroyed, and deliveries succeed again once it is back; drain() and pool.end() finish',
    { timeout: 120_000 },
    async () => {
      // Each wait below is for something that must end by itself (a bound, not a speed): nominally
      // the whole test takes 3 s, but a delivery waiting for one of the pool's 2 connections can
      // take two leases plus graces, and CI's 2 cores run at load ~10. A hang still fails.
      const BOUND_MS = 20_000;
      const { table, effects } = await tables();
      const proxy = await startTcpProxy(db.server.port);
      const pool = new pg.Pool({ connectionString: proxy.via(db.server.url), max: 2, connectionTimeoutMillis: 1_000 });
      pool.on('error', () => undefined);
      let holed = false;
      const { handler, entries } = handlerOn(
        pool,
        table,
        async ({ eventId, transaction }) => {
          await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
          if (eventId.startsWith('evt-bh-') && !holed) {
            holed = true;
            proxy.blackhole(); // inside the transaction: its COMMIT goes nowhere
          }
        },
        { leaseMs: 2_000, responseTimeoutMs: 2_000 },
      );
      try {
        const during = await Promise.all([deliver(handler, 'evt-bh-1'), deliver(handler, 'evt-bh-2'), deliver(handler, 'evt-bh-3')]);
        expect(during).toEqual([503, 503, 503]);
        // each gives up on its own within the lease and a grace, though nothing ever answers
        const settled = () => entries.filter((entry) => entry.eventId?.startsWith('evt-bh-') && entry.outcome !== 'timeout');
        expect(await eventually(() => settled().length === 3, BOUND_MS)).toBe(true);
        // a COMMIT or a claim lost with the network is the store's failure; an onEvent whose own statement
        // hangs on it is let go at maxHandlingMs (the lease, with a transactional store), which one is a race
        expect(settled().map((entry) => entry.outcome)).toContain('store-unavailable');
        for (const entry of settled()) {
          if (entry.outcome !== 'store-unavailable')
            expect(entry).toMatchObject({ outcome: 'failed', error: { name: 'HandlingAbandonedError' } });
        }
        // destroyed, not returned (a checkout begun meanwhile ends at connectionTimeoutMillis)
        expect(await eventually(() => pool.totalCount === 0, BOUND_MS)).toBe(true);
        proxy.restore();
        // within about one lease, the same pool works again
        expect(await eventually(async () => (await deliver(handler, 'evt-after')) === 200, BOUND_MS)).toBe(true);
        for (const id of ['evt-bh-1', 'evt-bh-2', 'evt-bh-3']) {
          expect(await eventually(async () => (await deliver(handler, id)) === 200, BOUND_MS)).toBe(true); // PostgreSQL ended the held sessions
          expect(await deliver(handler, id)).toBe(200);
          expect(await effectsOf(effects, id)).toBe(1);
        }
        expect(await handler.drain({ timeoutMs: BOUND_MS })).toMatchObject({ drained: true });
      } finally {
        proxy.restore();
        await Promise.race([pool.end(), sleep(BOUND_MS).then(() => Promise.reject(new Error('pool.end() hung')))]);
        await proxy.close();
      }
      const idle = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'`,
      );
      expect(idle.rows[0]!.n).toBe(0);
    },
  );

  it('a session ended mid-onEvent (pool max 1): the dead handle is refused, 503, nothing acknowledged, and the next delivery runs on a fresh session', async () => {
    const { table, effects } = await tables();
    const pool = new pg.Pool({ connectionString: db.server.url, max: 1, connectionTimeoutMillis: 1_000 });
    pool.on('error', () => undefined);
    let calls = 0;
    let late: unknown;
    const { handler, entries } = handlerOn(pool, table, async ({ eventId, transaction }) => {
      calls++;
      await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
      if (calls === 1) {
        const pid = (await transaction.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
        await sleep(100);
        late = await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]).catch((error: unknown) => error);
      }
    });
    try {
      // answered once the session died, without waiting for onEvent, whose later statement is refused
      expect(await deliver(handler, 'evt-term')).toBe(503);
      expect(await eventually(() => late !== undefined, 5_000)).toBe(true);
      expect(late).toBeInstanceOf(Error);
      expect(entries[0]).toMatchObject({ outcome: 'store-unavailable' });
      expect(await deliver(handler, 'evt-term')).toBe(200);
      expect(await deliver(handler, 'evt-next')).toBe(200);
      expect(await effectsOf(effects, 'evt-term')).toBe(1);
      expect(await effectsOf(effects, 'evt-next')).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('a connection reset or a PostgreSQL restart mid-onEvent (pool max 1): 503, then each event once', async () => {
    const { table, effects } = await tables();
    const proxy = await startTcpProxy(db.server.port);
    const pool = new pg.Pool({ connectionString: proxy.via(db.server.url), max: 1, connectionTimeoutMillis: 2_000 });
    pool.on('error', () => undefined);
    const faults: Record<string, () => Promise<void>> = {
      'evt-reset': async () => proxy.reset(),
      'evt-restart': () => db.server.restart('fast'), // immediate needs durableCommits (this server's DDL would be lost)
    };
    const done = new Set<string>();
    const { handler, entries } = handlerOn(pool, table, async ({ eventId, transaction }) => {
      await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
      if (!done.has(eventId)) {
        done.add(eventId);
        await faults[eventId]?.();
        await sleep(50);
        await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]).catch(() => undefined);
      }
    });
    try {
      for (const id of Object.keys(faults)) {
        expect(await deliver(handler, id), id).toBe(503);
        expect(entries.at(-1), id).toMatchObject({ outcome: 'store-unavailable' });
        expect(await eventually(async () => (await deliver(handler, id)) === 200, 10_000)).toBe(true);
        expect(await deliver(handler, 'evt-plain-' + id)).toBe(200);
        expect(await effectsOf(effects, id), id).toBe(1);
      }
    } finally {
      await pool.end();
      await proxy.close();
    }
  });

  it('onEvent that ends its transaction (ROLLBACK, COMMIT) is refused: 500, nothing acknowledged, a misuse logged, and the redelivery runs it', async () => {
    for (const statement of ['ROLLBACK', 'COMMIT', 'commit; begin']) {
      const { table, effects } = await tables();
      let calls = 0;
      const { handler, entries } = handlerOn(db.pool, table, async ({ eventId, transaction }) => {
        calls++;
        await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
        if (calls === 1) await transaction.query(statement).catch(() => undefined); // swallowed: the store must still see it
      });
      expect(await deliver(handler, 'evt-misuse'), statement).toBe(500);
      // the log entry carries the error as a plain object
      expect(entries[0]!.error).toMatchObject({ name: 'PostgresTransactionError', message: expect.stringMatching(/SAVEPOINT/) });
      expect(await effectsOf(effects, 'evt-misuse'), statement).toBe(0); // refused before it reached PostgreSQL
      expect(await deliver(handler, 'evt-misuse')).toBe(200);
      expect(await effectsOf(effects, 'evt-misuse'), statement).toBe(1);
    }
  });

  it("onEvent that closes its transaction's connection (transaction.end()) is refused as a misuse: 500 naming it, not a store failure", async () => {
    const { table, effects } = await tables();
    let calls = 0;
    const { handler, entries } = handlerOn(db.pool, table, async ({ eventId, transaction }) => {
      calls++;
      await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
      if (calls === 1) await Promise.resolve(transaction.end()).catch(() => undefined); // swallowed: the store must still see it
    });
    expect(await deliver(handler, 'evt-ended')).toBe(500);
    expect(entries[0]).toMatchObject({
      outcome: 'failed',
      error: { name: 'PostgresTransactionError', message: expect.stringMatching(/end\(\)/) },
    });
    expect(await effectsOf(effects, 'evt-ended')).toBe(0);
    expect(await deliver(handler, 'evt-ended')).toBe(200);
    expect(await effectsOf(effects, 'evt-ended')).toBe(1);
  });

  it('partial undo in every spelling PostgreSQL takes (ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT]) is allowed, not taken for a misuse', async () => {
    const { table, effects } = await tables();
    const spellings = [
      'ROLLBACK TO SAVEPOINT s',
      'ROLLBACK TO s',
      'rollback work to savepoint s',
      'ROLLBACK TRANSACTION TO s',
      '/* undo */ ROLLBACK\n  TRANSACTION TO SAVEPOINT s',
    ];
    for (const [n, undo] of spellings.entries()) {
      const { handler, entries } = handlerOn(db.pool, table, async ({ eventId, transaction }) => {
        await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
        await transaction.query('SAVEPOINT s');
        await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [`${eventId}-undone`]);
        await transaction.query(undo);
      });
      expect(await deliver(handler, `evt-undo-${n}`), undo).toBe(200);
      expect(entries[0]?.error, undo).toBeUndefined();
      expect(await effectsOf(effects, `evt-undo-${n}`), undo).toBe(1);
      expect(await effectsOf(effects, `evt-undo-${n}-undone`), undo).toBe(0);
    }
  });

  it('a COMMIT hidden in a multi-statement string is caught after onEvent: 500, not marked done, a misuse logged', async () => {
    const { table, effects } = await tables();
    let calls = 0;
    const { handler, entries } = handlerOn(db.pool, table, async ({ eventId, transaction }) => {
      calls++;
      await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
      if (calls === 1) await transaction.query('SELECT 1; COMMIT');
    });
    expect(await deliver(handler, 'evt-hidden')).toBe(500);
    expect(entries[0]!.error).toMatchObject({ name: 'PostgresTransactionError', message: expect.stringMatching(/ROLLBACK TO SAVEPOINT/) });
    const row = (await db.pool.query<{ state: string }>(`SELECT state FROM "${table}" WHERE event_id = 'evt-hidden'`)).rows[0];
    expect(row?.state).not.toBe('done');
    expect(await deliver(handler, 'evt-hidden')).toBe(200); // runs again: the committed write is the partner's misuse
    expect(calls).toBe(2);
  });

  it('work started on transaction after onEvent returned is refused, never run in another delivery', async () => {
    const { table, effects } = await tables();
    const pool = new pg.Pool({ connectionString: db.server.url, max: 1 });
    pool.on('error', () => undefined);
    let leaked: Promise<unknown> | undefined;
    let leakedAtOnce: Promise<unknown> | undefined;
    const { handler } = handlerOn(pool, table, async ({ eventId, transaction }) => {
      await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
      if (eventId === 'evt-first') {
        // at once (while the store marks the event done) and later (while another delivery has the connection)
        leakedAtOnce = sleep(1)
          .then(() => transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ('leaked')`))
          .catch((error: unknown) => error);
        leaked = sleep(50)
          .then(() => transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ('leaked')`))
          .catch((error: unknown) => error);
      } else {
        await sleep(200); // the leaked write is attempted while this delivery holds the only connection
      }
    });
    try {
      expect(await deliver(handler, 'evt-first')).toBe(200);
      expect(await deliver(handler, 'evt-second')).toBe(200);
      expect(await leaked).toBeInstanceOf(PostgresTransactionError);
      expect(await leakedAtOnce).toBeInstanceOf(PostgresTransactionError);
      expect(await effectsOf(effects, 'leaked')).toBe(0);
    } finally {
      await pool.end();
    }
  });

  it('a statement left running as onEvent returns fails the delivery (500, misuse) instead of committing with the done mark', async () => {
    const { table, effects } = await tables();
    let calls = 0;
    const { handler, entries } = handlerOn(db.pool, table, async ({ eventId, transaction }) => {
      calls++;
      await transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]);
      if (calls === 1)
        queueMicrotask(() => void transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ('not awaited')`).catch(() => undefined));
    });
    expect(await deliver(handler, 'evt-not-awaited')).toBe(500);
    expect(entries[0]!.error).toMatchObject({ name: 'PostgresTransactionError', message: expect.stringMatching(/await every statement/) });
    expect(await effectsOf(effects, 'not awaited')).toBe(0);
    expect(await effectsOf(effects, 'evt-not-awaited')).toBe(0);
    expect(await deliver(handler, 'evt-not-awaited')).toBe(200);
    expect(await effectsOf(effects, 'evt-not-awaited')).toBe(1);
  });

  it('refuses postgres.js in transactional mode with a typed error (it can run a dead transaction statements on another session)', () => {
    const sql = postgres(db.server.url, { max: 1 });
    try {
      // @ts-expect-error refused by the types too
      expect(() => new PostgresEventStore({ pool: sql, transactional: true })).toThrow(PostgresTransactionError);
      // @ts-expect-error refused by the types too
      expect(() => new PostgresEventStore({ pool: sql, transactional: true })).toThrow(/postgres\.js.*pg/);
      expect(new PostgresEventStore({ pool: sql }).transactional).toBe(false);
    } finally {
      void sql.end({ timeout: 0 });
    }
  });

  it('the longest leaseMs the handler accepts (2^31 - 1 ms) handles a delivery: no bound overflows a timer into firing at once', async () => {
    const { table, effects } = await tables();
    const { handler, entries } = handlerOn(
      db.pool,
      table,
      ({ eventId, transaction }) => transaction.query(`INSERT INTO "${effects}" (event_id) VALUES ($1)`, [eventId]).then(() => undefined),
      { leaseMs: 2_147_483_647 },
    );
    expect(await deliver(handler, 'evt-longest-lease')).toBe(200);
    expect(entries.map((entry) => entry.outcome)).toEqual(['handled']);
    expect(await effectsOf(effects, 'evt-longest-lease')).toBe(1);
  });

  it('statementTimeoutMs past what a timer can hold is refused at construction (it would time out every statement at once)', async () => {
    const { table } = await tables();
    expect(() => new PostgresEventStore({ pool: db.pool, table, statementTimeoutMs: 2_147_483_648 })).toThrow(
      /statementTimeoutMs must be at most 2147483647/,
    );
    const longest = new PostgresEventStore({ pool: db.pool, table, statementTimeoutMs: 2_147_483_647 });
    await expect(longest.claim('evt-longest-statement', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await expect(longest.ensureSchema()).resolves.toBeUndefined();
  });

  it('a literal id that looks like a hashed one never collides with the long id it names', async () => {
    const { table } = await tables();
    const store = new PostgresEventStore({ pool: db.pool, table, transactional: true });
    const long = 'x'.repeat(300);
    const digest = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(long))).toString('hex');
    let ran = 0;
    expect(
      await store.transact({ eventId: long, type: 't' }, 5_000, async () => {
        ran++;
      }),
    ).toBe('handled');
    expect(
      await store.transact({ eventId: `sha256:${digest}`, type: 't' }, 5_000, async () => {
        ran++;
      }),
    ).toBe('handled');
    expect(
      await store.transact({ eventId: `sha256:${digest}`, type: 't' }, 5_000, async () => {
        ran++;
      }),
    ).toBe('done');
    expect(ran).toBe(2);
  });

  it('records done_at at the done mark, not when the transaction began', async () => {
    const { table } = await tables();
    const store = new PostgresEventStore({ pool: db.pool, table, transactional: true });
    const before = Date.now();
    await store.transact({ eventId: 'evt-slow-done', type: 't' }, 5_000, async () => {
      await sleep(600);
    });
    const row = (await db.pool.query<{ done_at: Date }>(`SELECT done_at FROM "${table}" WHERE event_id = 'evt-slow-done'`)).rows[0]!;
    expect(row.done_at.getTime()).toBeGreaterThanOrEqual(before + 500);
  });
});

describe('PostgresEventStore.ensureSchema checks', () => {
  const db = usePostgres({ max: 8 });

  it('gives a 63-character table its index, under another name', async () => {
    const table = `t${'x'.repeat(62)}`;
    await new PostgresEventStore({ pool: db.pool, table }).ensureSchema();
    const indexes = (await db.pool.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = $1`, [table])).rows.map(
      (row) => row.indexname,
    );
    expect(indexes.length).toBe(2); // the primary key and first_seen
    expect(indexes).not.toContain(table);
  });

  it('fails, naming what is wrong, on a table of another shape', async () => {
    const cases: [string, RegExp][] = [
      [
        '(event_id text, type text, state text NOT NULL, lease_owner uuid, lease_until timestamptz, first_seen timestamptz NOT NULL DEFAULT now(), done_at timestamptz)',
        /primary key/i,
      ],
      [
        '(event_id varchar(64) PRIMARY KEY, type text, state text NOT NULL, lease_owner uuid, lease_until timestamptz, first_seen timestamptz NOT NULL DEFAULT now(), done_at timestamptz)',
        /event_id.*text/i,
      ],
      [
        '(event_id text PRIMARY KEY, type text, state text NOT NULL, first_seen timestamptz NOT NULL DEFAULT now(), done_at timestamptz)',
        /lease_owner/,
      ],
    ];
    await db.pool
      .query(`CREATE COLLATION IF NOT EXISTS ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)`)
      .catch(() => undefined);
    const icu = (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_collation WHERE collname = 'ci'`)).rows[0]!.n === 1;
    if (icu) {
      cases.push([
        '(event_id text COLLATE ci PRIMARY KEY, type text, state text NOT NULL, lease_owner uuid, lease_until timestamptz, first_seen timestamptz NOT NULL DEFAULT now(), done_at timestamptz)',
        /deterministic/,
      ]);
    }
    for (const [shape, message] of cases) {
      const table = uniqueTable();
      await db.pool.query(`CREATE TABLE "${table}" ${shape}`);
      const error = await new PostgresEventStore({ pool: db.pool, table }).ensureSchema().catch((e: unknown) => e);
      expect(error, shape).toBeInstanceOf(PostgresStoreError);
      expect((error as Error).message, shape).toMatch(message);
    }
  });

  it('refuses pg_temp, and takes one lock for t and public.t (40 concurrent starts, no failure)', async () => {
    expect(() => new PostgresEventStore({ pool: db.pool, table: 'pg_temp.x' })).toThrow(/pg_temp/);
    const table = uniqueTable();
    const starts = Array.from({ length: 40 }, (_, i) =>
      new PostgresEventStore({ pool: db.pool, table: i % 2 === 0 ? table : `public.${table}` }).ensureSchema(),
    );
    const results = await Promise.allSettled(starts);
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
  });
});
