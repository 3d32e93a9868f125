import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import { startPostgres } from '/work/wt/pg2/test/helpers/postgres-server.ts';
const postgres = await startPostgres();
const pool = new pg.Pool({ connectionString: postgres.url, max: 20 });
pool.on('error', () => undefined);
const hex = (v) => Buffer.from(v).toString('hex');
const lit = (v) => `(SELECT convert_from(decode('${hex(v)}', 'hex'), 'UTF8') COLLATE "default")`;
try {
  const store = new PostgresEventStore({ pool, transactional: true, table: 'e' });
  await store.ensureSchema();
  await pool.query('CREATE TABLE p (event_id text PRIMARY KEY, kind text NOT NULL)');
  const N = 1000;
  const variants = {
    sdk: async (id) => store.transact({ eventId: id, type: 'otc' }, 30_000, async (t) => { await t.query('INSERT INTO p (event_id, kind) VALUES ($1, $2)', [id, 'x']); }),
    sameSql: async (id) => {
      const c = await pool.connect();
      try {
        const I = lit(id), T = lit('otc');
        const r = await c.query(`BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL statement_timeout = 30000; INSERT INTO "e" (event_id, type, state) VALUES (${I}, ${T}, 'pending') ON CONFLICT (event_id) DO NOTHING; COMMIT; BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL statement_timeout = 30000; SET LOCAL idle_in_transaction_session_timeout = 30000; SELECT txid_current()::text AS x; SELECT state FROM "e" WHERE event_id = ${I}; SELECT e.state, coalesce(e.lease_until > now(), false) AS leased FROM "e" e WHERE e.event_id = ${I} FOR UPDATE OF e SKIP LOCKED`);
        const txid = r[7].rows[0].x;
        await c.query('INSERT INTO p (event_id, kind) VALUES ($1, $2)', [id, 'x']);
        await c.query(`WITH closing AS (UPDATE "e" SET state = 'done', type = ${T}, done_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL WHERE event_id = ${I} AND txid_current() = ${txid}::bigint RETURNING 1) SELECT CASE WHEN txid_current() <> ${txid}::bigint THEN ('x' || txid_current()::text)::int WHEN NOT EXISTS (SELECT 1 FROM closing) THEN ('y' || txid_current()::text)::int ELSE 1 END AS closed; COMMIT`);
      } finally { c.release(); }
    },
  };
  const res = { sdk: [], sameSql: [] };
  for (let round = 0; round < 8; round++) for (const [name, run] of (round % 2 ? Object.entries(variants).reverse() : Object.entries(variants))) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await run(randomUUID());
    res[name].push((performance.now() - t0) * 1000 / N);
  }
  for (const [k, v] of Object.entries(res)) console.log(k, v.map((x) => x.toFixed(0)).join(' '), 'median', [...v].sort((a, b) => a - b)[4].toFixed(0));
} finally { await pool.end(); await postgres.stop(); }
