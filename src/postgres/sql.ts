import { typeName } from '../internal/type-name.js';

/** The table's name when the `table` option is not given. */
export const DEFAULT_TABLE = 'checkout_webhook_events';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/** A checked `table` option: its quoted SQL name, its index's name, and its schema (undefined: the current one). */
export interface TableName {
  /** `"name"` or `"schema"."name"`. */
  quoted: string;
  /** The quoted name of the `first_seen` index. */
  index: string;
  /** The schema as written, or undefined for the current schema (the first of `search_path` that exists). */
  schema: string | undefined;
  /** The table's own name, as written. */
  name: string;
}

/**
 * The `table` option as a {@link TableName}, else a `TypeError`. Only plain identifiers are
 * accepted, so the name can never carry SQL; `pg_temp` (a temporary table, one per session) and
 * other `pg_` schemas are refused: every session would see a table of its own.
 */
export function tableName(value: unknown): TableName {
  if (value === undefined) value = DEFAULT_TABLE;
  const parts = typeof value === 'string' ? value.split('.') : [];
  if (parts.length < 1 || parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TypeError(
      `table must be a table name such as "${DEFAULT_TABLE}" or "myschema.${DEFAULT_TABLE}" ` +
        `(letters, digits, _ and $, at most 63 each), got ${typeName(value)}`,
    );
  }
  const schema = parts.length === 2 ? parts[0] : undefined;
  if (schema !== undefined && /^pg_/i.test(schema)) {
    throw new TypeError(`table must be in a schema shared by every session, not ${JSON.stringify(schema)} (pg_temp holds one temporary table per session), got ${typeName(value)}`);
  }
  const name = parts[parts.length - 1] ?? DEFAULT_TABLE;
  const index = `${name}_first_seen_idx`;
  return {
    quoted: parts.map((part) => `"${part}"`).join('.'),
    // PostgreSQL would cut a longer name to 63 bytes, which for a 63-byte table name is the table's
    // own name (and IF NOT EXISTS then skips the index): a long name is shortened with a hash instead
    index: `"${index.length <= 63 ? index : `${name.slice(0, 38)}_${fnv1a(name)}_first_seen_idx`}"`,
    schema,
    name,
  };
}

/** FNV-1a of `text` as 8 hex digits: a short, stable tag for a cut name. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/** The two-key advisory lock space of `ensureSchema()`, so it cannot meet an application's own one-key locks. */
const SCHEMA_LOCK_SPACE = 0x636b6f; // "cko"

/** The statements of one table. `$n` are parameters; every value travels as one, never in the text. */
export function statementsFor(table: TableName) {
  const t = table.quoted;
  // identifiers only hold [A-Za-z0-9_$] (checked above), so they are safe inside a literal
  const schemaText = table.schema === undefined ? 'current_schema()' : `'${table.schema}'`;
  const resolved = `${schemaText} || '.' || '${table.name}'`;
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
    /**
     * Serialises concurrent `ensureSchema()` calls on the table as PostgreSQL resolves it (`t` and
     * `public.t` take the same lock). Run first in the same simple query as {@link schema}.
     */
    schemaLock: `SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_SPACE}, hashtext(${resolved}));`,
    /**
     * What is wrong with the table's shape, one line each (no rows: it is right). Checked: a
     * permanent table, the columns the store uses with their types, `event_id` the whole primary
     * key, with a deterministic collation (a case-insensitive one would take `evt-1` for `EVT-1`).
     */
    shape: `WITH rel AS (
  SELECT c.oid, c.relpersistence FROM pg_class c
  WHERE c.oid = to_regclass('${t}')
), expected(name, type) AS (VALUES
  ('event_id', 'text'), ('type', 'text'), ('state', 'text'), ('lease_owner', 'uuid'),
  ('lease_until', 'timestamp with time zone'), ('first_seen', 'timestamp with time zone'), ('done_at', 'timestamp with time zone')
), actual AS (
  SELECT a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attcollation AS collation
  FROM pg_attribute a JOIN rel ON a.attrelid = rel.oid WHERE a.attnum > 0 AND NOT a.attisdropped
)
SELECT 'the table does not exist' AS problem WHERE NOT EXISTS (SELECT 1 FROM rel)
UNION ALL
SELECT 'it is a temporary table (one per session): use a schema every session shares' FROM rel WHERE relpersistence = 't'
UNION ALL
SELECT format('column %s is missing (expected %s)', e.name, e.type) FROM expected e
  WHERE EXISTS (SELECT 1 FROM rel) AND NOT EXISTS (SELECT 1 FROM actual a WHERE a.name = e.name)
UNION ALL
SELECT format('column %s is %s, expected %s', e.name, a.type, e.type) FROM expected e JOIN actual a USING (name) WHERE a.type <> e.type
UNION ALL
SELECT 'event_id is not the primary key (expected PRIMARY KEY (event_id))' FROM rel
  WHERE NOT EXISTS (
    SELECT 1 FROM pg_constraint k JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
    WHERE k.conrelid = rel.oid AND k.contype = 'p' AND cardinality(k.conkey) = 1 AND a.attname = 'event_id')
UNION ALL
SELECT format('column event_id has the nondeterministic collation %s (it would take ids that differ in case or accents for one): use a deterministic one such as "C"', co.collname)
FROM actual a JOIN pg_collation co ON co.oid = a.collation
WHERE a.name = 'event_id' AND (to_jsonb(co) ->> 'collisdeterministic') = 'false'`,
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
    /** $1 event id. Locks the row without waiting (the transaction's bounds are set at BEGIN). */
    lock: `SELECT e.state, coalesce(e.lease_until > now(), false) AS leased
FROM ${t} e
WHERE e.event_id = $1::text
FOR UPDATE OF e NOWAIT`,
    /**
     * $1 event id, $2 type, $3 the txid recorded at BEGIN. Marks done only inside the transaction
     * that locked the row (marked is false otherwise, and nothing is written). done_at is the clock now,
     * just before COMMIT, not the transaction's start, so a long onEvent does not shorten the TTL.
     */
    markDone: `WITH done AS (
  UPDATE ${t} SET state = 'done', type = $2::text, done_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
  WHERE event_id = $1::text AND txid_current() = $3::bigint
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM done) AS marked`,
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
