import { typeName } from '../internal/type-name.js';

export const DEFAULT_TABLE = 'checkout_webhook_events';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/** A checked `table` option. */
export interface TableName {
  quoted: string;
  index: string;
  /** Undefined: the current schema. */
  schema: string | undefined;
  name: string;
}

/** Plain identifiers only, so the name never carries SQL; `pg_` schemas are refused (`pg_temp` gives each session its own table). */
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

/** `<table>_<suffix>`, hashed past 63 bytes: PostgreSQL's cut could give the table's own name, and IF NOT EXISTS skip the index. */
export function indexName(table: string, suffix: string): string {
  const full = `${table}_${suffix}`;
  // existing indexes keep their names: never change this
  return `"${full.length <= 63 ? full : `${table.slice(0, 52 - suffix.length)}_${fnv1a(table)}_${suffix}`}"`;
}

function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/** Two-key advisory locks cannot meet an application's one-key locks. */
const SCHEMA_LOCK_SPACE = 0x636b6f; // "cko"

/** Serialises `ensureSchema()` on the table as PostgreSQL resolves it; run first in the same simple query as the DDL. */
export function schemaLockSql(table: TableName): string {
  return `SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_SPACE}, hashtext(${resolvedNameSql(table)}));`;
}

/** The table's name as PostgreSQL resolves it (`t` and `public.t` give the same text). */
export function resolvedNameSql(table: TableName): string {
  // checked identifiers are safe inside a literal
  const schemaText = table.schema === undefined ? 'current_schema()' : `'${table.schema}'`;
  return `${schemaText} || '.' || '${table.name}'`;
}

export interface TableShape {
  /** Types as `format_type` prints them. */
  columns: readonly (readonly [name: string, type: string])[];
  primaryKey: readonly string[];
  /** A case-insensitive collation would merge ids. */
  deterministic: readonly string[];
  /** Columns that must lead an index, so that no query scans. */
  indexed?: readonly string[];
}

/** What is wrong with the table's shape, one `problem` per row (none: it is right). */
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
  indexed: ['first_seen'],
};

/**
 * `value` as a dollar-quoted constant, safe to inline whatever it holds and whatever the session's settings or encoding: it has
 * no escapes and ends only at its tag, which is lengthened until it cannot close early. `value` must hold no NUL.
 */
export function textLiteral(value: string): string {
  // each `$` in value rules out at most one tag, so one of the first value.length + 1 fits
  for (let n = 0; n <= value.length; n++) {
    const delimiter = n === 0 ? '$v$' : `$v${n}$`;
    // the leading space keeps the tag from joining a preceding identifier
    if (`${value}${delimiter}`.indexOf(delimiter) === value.length) return ` ${delimiter}${value}${delimiter}`;
  }
  throw new Error('textLiteral: no dollar-quote tag fits'); // unreachable (see above)
}

/** The statements of one table; every value travels as a `$n` parameter. */
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
    schemaLock: schemaLockSql(table),
    shape: shapeSql(table, EVENT_TABLE_SHAPE),
    /** $1 event id, $2 owner, $3 lease ms. Takes a new, lapsed or this owner's row, never a done one, in one statement. */
    claim: `WITH claim AS (
  INSERT INTO ${t} AS e (event_id, state, lease_owner, lease_until)
  VALUES ($1::text, 'leased', $2::uuid, now() + $3::float8 * interval '1 millisecond')
  ON CONFLICT (event_id) DO UPDATE
    SET state = 'leased', lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
    WHERE e.state <> 'done' AND (e.lease_until IS NULL OR e.lease_until <= now() OR e.state = 'leased' AND e.lease_owner = excluded.lease_owner)
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM claim) AS claimed, (SELECT state FROM ${t} WHERE event_id = $1::text) AS state`,
    /** $1 event id, $2 owner (NULL: no lease, any row not done). */
    complete: `WITH done AS (
  UPDATE ${t} SET state = 'done', done_at = now(), lease_owner = NULL, lease_until = NULL
  WHERE event_id = $1::text AND (state = 'leased' AND lease_owner = $2::uuid OR $2::uuid IS NULL AND state <> 'done')
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM done) AS completed, (SELECT state FROM ${t} WHERE event_id = $1::text) AS state`,
    /** $1 event id, whose row is gone: nobody holds it. */
    insertDone: `INSERT INTO ${t} (event_id, state, done_at) VALUES ($1::text, 'done', now()) ON CONFLICT (event_id) DO NOTHING`,
    /** $1 event id, $2 owner, $3 lease ms. */
    renew: `UPDATE ${t} SET lease_until = now() + $3::float8 * interval '1 millisecond'
  WHERE event_id = $1::text AND state = 'leased' AND lease_owner = $2::uuid
  RETURNING 1`,
    /** $1 event id. A `pending` row only a transaction can hold, and its time left is not recorded. */
    leaseLeft: `SELECT state, CASE WHEN state = 'leased' AND lease_until > now()
  THEN ceil(extract(epoch FROM lease_until - now()) * 1000)::float8 ELSE 0 END AS left_ms
FROM ${t} WHERE event_id = $1::text`,
    /** $1 event id, $2 owner (NULL: any claim). */
    release: `DELETE FROM ${t} WHERE event_id = $1::text AND state = 'leased' AND ($2::uuid IS NULL OR lease_owner = $2::uuid)`,
    /** Sent without parameters in the transaction's round trips: `id` and `type` are {@link textLiteral}s, `txid` digits. */
    transactional: {
      /** Committed before the transaction: inside it, the insert would wait for another delivery's uncommitted insert. */
      insert: (id: string, type: string) =>
        `INSERT INTO ${t} (event_id, type, state) VALUES (${id}, ${type}, 'pending') ON CONFLICT (event_id) DO NOTHING`,
      /**
       * The row as committed, then locked without waiting (no row: another transaction holds it). A lock taken after a concurrent
       * commit returns the committed version (READ COMMITTED re-checks it), so the second is the one to trust when it has the row.
       */
      claim: (id: string) => `SELECT state FROM ${t} WHERE event_id = ${id};
SELECT e.state, coalesce(e.lease_until > now(), false) AS leased
FROM ${t} e
WHERE e.event_id = ${id}
FOR UPDATE OF e SKIP LOCKED`,
      /** Marks done only in the transaction that locked the row; `clock_timestamp()`, so a long `onEvent` does not shorten the TTL. */
      markDone: (
        id: string,
        type: string,
        txid: string,
      ) => `UPDATE ${t} SET state = 'done', type = ${type}, done_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
  WHERE event_id = ${id} AND txid_current() = ${txid}::bigint
  RETURNING 1`,
    },
    /** $1 ttl seconds, $2 batch size. */
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

export type TableStatements = ReturnType<typeof statementsFor>;
