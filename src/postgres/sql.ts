import { typeName } from '../internal/type-name.js';

/** The table's name when the `table` option is not given. */
export const DEFAULT_TABLE = 'checkout_webhook_events';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/**
 * The `table` option as a quoted SQL name (`"name"` or `"schema"."name"`), else a `TypeError`.
 * Only plain identifiers are accepted, so the name can never carry SQL.
 */
export function tableName(value: unknown): { quoted: string; index: string } {
  if (value === undefined) value = DEFAULT_TABLE;
  const parts = typeof value === 'string' ? value.split('.') : [];
  if (parts.length < 1 || parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TypeError(
      `table must be a table name such as "${DEFAULT_TABLE}" or "myschema.${DEFAULT_TABLE}" ` +
        `(letters, digits, _ and $, at most 63 each), got ${typeName(value)}`,
    );
  }
  const last = parts[parts.length - 1] ?? DEFAULT_TABLE;
  return {
    quoted: parts.map((part) => `"${part}"`).join('.'),
    // PostgreSQL puts an index in its table's schema; the name is cut to 63 bytes like any other
    index: `"${`${last}_first_seen_idx`.slice(0, 63)}"`,
  };
}

/** The statements of one table. `$n` are parameters; every value travels as one, never in the text. */
export function statementsFor(table: { quoted: string; index: string }) {
  const t = table.quoted;
  return {
    schema: [
      `CREATE TABLE IF NOT EXISTS ${t} (
  event_id    text        PRIMARY KEY,
  type        text,
  state       text        NOT NULL CHECK (state IN ('pending', 'leased', 'done')),
  lease_owner uuid,
  lease_until timestamptz,
  first_seen  timestamptz NOT NULL DEFAULT now(),
  done_at     timestamptz
);`,
      `CREATE INDEX IF NOT EXISTS ${table.index} ON ${t} (first_seen);`,
    ],
    /** Serialises concurrent `ensureSchema()` calls ($1: the table name). */
    schemaLock: `SELECT pg_advisory_xact_lock(hashtext($1::text))`,
    /** $1 event id, $2 owner, $3 lease ms. Takes a new or lapsed, not done row in one statement. */
    claim: `WITH claim AS (
  INSERT INTO ${t} AS e (event_id, state, lease_owner, lease_until)
  VALUES ($1::text, 'leased', $2::uuid, now() + $3::float8 * interval '1 millisecond')
  ON CONFLICT (event_id) DO UPDATE
    SET state = 'leased', lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
    WHERE e.state <> 'done' AND (e.lease_until IS NULL OR e.lease_until <= now())
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM claim) AS claimed, (SELECT state FROM ${t} WHERE event_id = $1::text) AS state`,
    /** $1 event id, $2 owner (or null). Marks done only the caller's own claim. */
    complete: `WITH done AS (
  UPDATE ${t} SET state = 'done', done_at = now(), lease_owner = NULL, lease_until = NULL
  WHERE event_id = $1::text AND state = 'leased' AND lease_owner = $2::uuid
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM done) AS completed, (SELECT state FROM ${t} WHERE event_id = $1::text) AS state`,
    /** $1 event id: the row is gone (released, purged), so nobody holds it: record it done. */
    insertDone: `INSERT INTO ${t} (event_id, state, done_at) VALUES ($1::text, 'done', now()) ON CONFLICT (event_id) DO NOTHING`,
    /** $1 event id, $2 owner (or null). */
    release: `DELETE FROM ${t} WHERE event_id = $1::text AND state = 'leased' AND lease_owner = $2::uuid`,
    /**
     * $1 event id, $2 type. Autocommitted before the transaction, so the row exists for every
     * delivery: inside it, the insert would wait for another delivery's uncommitted insert.
     */
    ensureRow: `WITH ins AS (
  INSERT INTO ${t} (event_id, type, state) VALUES ($1::text, $2::text, 'pending') ON CONFLICT (event_id) DO NOTHING
)
SELECT state FROM ${t} WHERE event_id = $1::text`,
    /**
     * $1 event id, $2 statement timeout ms, $3 idle timeout ms (null: leave as configured). Locks
     * the row without waiting, and bounds the transaction: a statement longer than $2 is cancelled
     * (the transaction fails); idle longer than $3 (in onEvent's other awaits), the session is ended.
     */
    lock: `SELECT e.state, coalesce(e.lease_until > now(), false) AS leased
FROM ${t} e, (SELECT set_config('statement_timeout', $2::text, true),
                     set_config('idle_in_transaction_session_timeout',
                                coalesce($3::text, current_setting('idle_in_transaction_session_timeout')), true)) AS limits
WHERE e.event_id = $1::text
FOR UPDATE OF e NOWAIT`,
    /** $1 event id, $2 type. */
    markDone: `UPDATE ${t} SET state = 'done', type = $2::text, done_at = now(), lease_owner = NULL, lease_until = NULL WHERE event_id = $1::text`,
    /** $1 ttl seconds, $2 batch size. Rows locked by a delivery are skipped, never waited for. */
    purge: `WITH gone AS (
  DELETE FROM ${t} WHERE event_id IN (
    SELECT event_id FROM ${t}
    WHERE first_seen < now() - $1::float8 * interval '1 second'
      AND coalesce(done_at, first_seen) < now() - $1::float8 * interval '1 second'
      AND (state <> 'leased' OR lease_until < now())
    LIMIT $2::int
    FOR UPDATE SKIP LOCKED
  )
  RETURNING 1
)
SELECT count(*)::int AS purged FROM gone`,
  };
}

/** The SQL statements of one table, as {@link statementsFor} returns them. */
export type TableStatements = ReturnType<typeof statementsFor>;
