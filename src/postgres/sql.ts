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
 * other `pg_` schemas are refused: every session would see a table of its own. `defaultName` is
 * the table when the option is not given (each store has its own).
 */
export function tableName(value: unknown, defaultName = DEFAULT_TABLE): TableName {
  if (value === undefined) value = defaultName;
  const parts = typeof value === 'string' ? value.split('.') : [];
  if (parts.length < 1 || parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TypeError(
      `table must be a table name such as "${defaultName}" or "myschema.${defaultName}" ` +
        `(letters, digits, _ and $, at most 63 each), got ${typeName(value)}`,
    );
  }
  const schema = parts.length === 2 ? parts[0] : undefined;
  if (schema !== undefined && /^pg_/i.test(schema)) {
    throw new TypeError(
      `table must be in a schema shared by every session, not ${JSON.stringify(schema)} (pg_temp holds one temporary table per session), got ${typeName(value)}`,
    );
  }
  const name = parts[parts.length - 1] ?? defaultName;
  return {
    quoted: parts.map((part) => `"${part}"`).join('.'),
    index: indexName(name, 'first_seen_idx'),
    schema,
    name,
  };
}

/**
 * The quoted name of the table's index `<table>_<suffix>`. PostgreSQL would cut a longer name to 63
 * bytes, which for a long table name can be the table's own name (and IF NOT EXISTS then skips the
 * index): a long name is shortened with a hash instead.
 */
export function indexName(table: string, suffix: string): string {
  const full = `${table}_${suffix}`;
  // 52 - suffix: the same 62-byte names as before this was shared (the event store's indexes keep their names)
  return `"${full.length <= 63 ? full : `${table.slice(0, 52 - suffix.length)}_${fnv1a(table)}_${suffix}`}"`;
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

/**
 * `ensureSchema()`'s advisory lock: serialises concurrent calls on the table as PostgreSQL resolves
 * it (`t` and `public.t` take the same lock). Run first in the same simple query as the DDL.
 */
export function schemaLockSql(table: TableName): string {
  return `SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_SPACE}, hashtext(${resolvedNameSql(table)}));`;
}

/** An SQL expression for the table's name as PostgreSQL resolves it (`t` and `public.t` give the same text). */
export function resolvedNameSql(table: TableName): string {
  // identifiers only hold [A-Za-z0-9_$] (checked above), so they are safe inside a literal
  const schemaText = table.schema === undefined ? 'current_schema()' : `'${table.schema}'`;
  return `${schemaText} || '.' || '${table.name}'`;
}

/** What a store's table must look like, for {@link shapeSql}. */
export interface TableShape {
  /** Every column the store uses, with its type as `format_type` prints it. */
  columns: readonly (readonly [name: string, type: string])[];
  /** The primary key's columns, in order. */
  primaryKey: readonly string[];
  /** Text key columns that need a deterministic collation (a case-insensitive one would merge ids). */
  deterministic: readonly string[];
  /** Columns that must lead an index (the store's queries find rows through it, never by a scan). */
  indexed?: readonly string[];
}

/**
 * A query returning what is wrong with the table's shape, one `problem` per row (no rows: it is
 * right): a permanent table, the columns with their types, the primary key, deterministic
 * collations on the key, and the indexes the store's queries depend on.
 */
export function shapeSql(table: TableName, shape: TableShape): string {
  const t = table.quoted;
  const expected = shape.columns.map(([name, type]) => `('${name}', '${type}')`).join(', ');
  const key = shape.primaryKey.map((name) => `'${name}'`).join(', ');
  const keyText = shape.primaryKey.join(', ');
  const deterministic = shape.deterministic.map((name) => `'${name}'`).join(', ');
  const indexed = (shape.indexed ?? []).map(
    (name) => `
UNION ALL
SELECT 'no index leads with ${name} (expected CREATE INDEX ON the table (${name}))' FROM rel
  WHERE NOT EXISTS (
    SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
    WHERE i.indrelid = rel.oid AND a.attname = '${name}')`,
  );
  return `WITH rel AS (
  SELECT c.oid, c.relpersistence FROM pg_class c
  WHERE c.oid = to_regclass('${t}')
), expected(name, type) AS (VALUES
  ${expected}
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
SELECT '${shape.primaryKey.length === 1 ? `${keyText} is not the primary key` : `(${keyText}) is not the primary key`} (expected PRIMARY KEY (${keyText}))' FROM rel
  WHERE NOT EXISTS (
    SELECT 1 FROM pg_constraint k
    WHERE k.conrelid = rel.oid AND k.contype = 'p'
      AND ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS u(attnum, n)
                JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.n) = ARRAY[${key}]::text[])
UNION ALL
SELECT format('column %s has the nondeterministic collation %s (it would take ids that differ in case or accents for one): use a deterministic one such as "C"', a.name, co.collname)
FROM actual a JOIN pg_collation co ON co.oid = a.collation
WHERE a.name IN (${deterministic}) AND (to_jsonb(co) ->> 'collisdeterministic') = 'false'${indexed.join('')}`;
}

/** The shape {@link statementsFor}'s table must have. */
const EVENT_TABLE_SHAPE: TableShape = {
  columns: [
    ['event_id', 'text'],
    ['type', 'text'],
    ['state', 'text'],
    ['lease_owner', 'uuid'],
    ['lease_until', 'timestamp with time zone'],
    ['first_seen', 'timestamp with time zone'],
    ['done_at', 'timestamp with time zone'],
  ],
  primaryKey: ['event_id'],
  deterministic: ['event_id'],
  // the purge finds old rows through it
  indexed: ['first_seen'],
};

/**
 * `value` as a dollar-quoted SQL string constant (`$v$…$v$`, the tag lengthened until it cannot
 * close early): safe to inline in a statement sent without parameters, whatever `value` holds and
 * whatever the session's `standard_conforming_strings` or client encoding, because a dollar-quoted
 * string has no escapes and ends only at its own tag (`$` is never part of a multibyte character in
 * any client encoding PostgreSQL takes). A constant plans as a parameter does (the key's index is
 * used, with the column's collation). `value` must hold no NUL (PostgreSQL `text` cannot; the
 * stores hash such ids).
 */
export function textLiteral(value: string): string {
  // a tag that occurs in value, or whose start value ends with, would end the string early; each
  // `$` in value rules out at most one of these tags, so one of the first value.length + 1 fits
  for (let n = 0; n <= value.length; n++) {
    const delimiter = n === 0 ? '$v$' : `$v${n}$`;
    // the leading space keeps the opening tag from joining a preceding identifier
    if (`${value}${delimiter}`.indexOf(delimiter) === value.length) return ` ${delimiter}${value}${delimiter}`;
  }
  throw new Error('textLiteral: no dollar-quote tag fits'); // unreachable (see above)
}

/** The statements of one table. `$n` are parameters; every value travels as one, never in the text. */
export function statementsFor(table: TableName) {
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
    /** See {@link schemaLockSql}. */
    schemaLock: schemaLockSql(table),
    /** See {@link shapeSql}: `event_id` the whole primary key, with a deterministic collation. */
    shape: shapeSql(table, EVENT_TABLE_SHAPE),
    /**
     * $1 event id, $2 owner, $3 lease ms. Takes a new or lapsed, not done row in one statement, or
     * one this very owner id holds (an owner's id is the same on each restart: taken back).
     */
    claim: `WITH claim AS (
  INSERT INTO ${t} AS e (event_id, state, lease_owner, lease_until)
  VALUES ($1::text, 'leased', $2::uuid, now() + $3::float8 * interval '1 millisecond')
  ON CONFLICT (event_id) DO UPDATE
    SET state = 'leased', lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
    WHERE e.state <> 'done' AND (e.lease_until IS NULL OR e.lease_until <= now() OR e.state = 'leased' AND e.lease_owner = excluded.lease_owner)
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM claim) AS claimed, (SELECT state FROM ${t} WHERE event_id = $1::text) AS state`,
    /** $1 event id, $2 owner (NULL: no lease). Marks done only the caller's own claim, or with no lease any row not done. */
    complete: `WITH done AS (
  UPDATE ${t} SET state = 'done', done_at = now(), lease_owner = NULL, lease_until = NULL
  WHERE event_id = $1::text AND (state = 'leased' AND lease_owner = $2::uuid OR $2::uuid IS NULL AND state <> 'done')
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM done) AS completed, (SELECT state FROM ${t} WHERE event_id = $1::text) AS state`,
    /** $1 event id: the row is gone (released, purged), so nobody holds it: record it done. */
    insertDone: `INSERT INTO ${t} (event_id, state, done_at) VALUES ($1::text, 'done', now()) ON CONFLICT (event_id) DO NOTHING`,
    /** $1 event id, $2 owner, $3 lease ms. Extends the owner's own claim (while no other took the row): one row, or none. */
    renew: `UPDATE ${t} SET lease_until = now() + $3::float8 * interval '1 millisecond'
  WHERE event_id = $1::text AND state = 'leased' AND lease_owner = $2::uuid
  RETURNING 1`,
    /**
     * $1 event id. Milliseconds left on the live plain claim (`left_ms`, 0 when none); `state`
     * `pending` for a row only a transaction can hold (its time left is not recorded).
     */
    leaseLeft: `SELECT state, CASE WHEN state = 'leased' AND lease_until > now()
  THEN ceil(extract(epoch FROM lease_until - now()) * 1000)::float8 ELSE 0 END AS left_ms
FROM ${t} WHERE event_id = $1::text`,
    /** $1 event id, $2 owner (NULL: no lease, any claim). Never a done row. */
    release: `DELETE FROM ${t} WHERE event_id = $1::text AND state = 'leased' AND ($2::uuid IS NULL OR lease_owner = $2::uuid)`,
    /**
     * The transactional mode's statements, sent without parameters in the transaction's own round
     * trips (see `ProvenTransactionScript`): `id` and `type` are {@link textLiteral}s, `txid` digits.
     */
    transactional: {
      /**
       * Committed before the transaction (its prelude), so the row exists for every delivery:
       * inside it, the insert would wait for another delivery's uncommitted insert.
       */
      insert: (id: string, type: string) =>
        `INSERT INTO ${t} (event_id, type, state) VALUES (${id}, ${type}, 'pending') ON CONFLICT (event_id) DO NOTHING`,
      /**
       * Two statements, the transaction's opening: the row as committed (done, or no row), then
       * the row locked without waiting (no row when another transaction holds it). A lock taken after
       * a concurrent commit returns that committed version (READ COMMITTED re-checks it), so the
       * second is the one to trust when it has the row. Two plain statements rather than one with a
       * LATERAL join: each is a single index lookup.
       */
      claim: (id: string) => `SELECT state FROM ${t} WHERE event_id = ${id};
SELECT e.state, coalesce(e.lease_until > now(), false) AS leased
FROM ${t} e
WHERE e.event_id = ${id}
FOR UPDATE OF e SKIP LOCKED`,
      /**
       * The closing statement: marks done only inside the transaction that locked the row (nothing
       * is written otherwise, and the transaction then refuses to commit). done_at is the clock now,
       * just before COMMIT, not the transaction's start, so a long onEvent does not shorten the TTL.
       */
      markDone: (
        id: string,
        type: string,
        txid: string,
      ) => `UPDATE ${t} SET state = 'done', type = ${type}, done_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
  WHERE event_id = ${id} AND txid_current() = ${txid}::bigint
  RETURNING 1`,
    },
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
