import { STATUS_KINDS } from '../kinds.js';
import { indexName, resolvedNameSql, schemaLockSql, shapeSql, type TableName, type TableShape } from './sql.js';

export const DEFAULT_STATUS_TABLE = 'checkout_status_records';

/** Times are epoch milliseconds from {@link NOW_MS}, PostgreSQL's clock; `ended_at` (retention) a `timestamptz`. */
const STATUS_TABLE_SHAPE: TableShape = {
  columns: [
    ['kind', 'text'],
    ['external_id', 'text'],
    ['external_id_json', 'text'],
    ['watching', 'boolean'],
    ['watched_at', 'bigint'],
    ['due_at', 'bigint'],
    ['handled_status', 'text'],
    ['handled_at', 'bigint'],
    ['nudged_at', 'bigint'],
    ['event', 'text'],
    ['nudges', 'bigint'],
    ['lease_nudges', 'bigint'],
    ['failures', 'integer'],
    ['lease_token', 'text'],
    ['lease_owner', 'text'],
    ['lease_until', 'bigint'],
    ['ended_at', 'timestamp with time zone'],
    ['owed_at', 'bigint'],
    ['found_key', 'text'],
  ],
  primaryKey: ['kind', 'external_id'],
  deterministic: ['kind', 'external_id'],
  indexed: ['due_at', 'ended_at', 'lease_owner', 'owed_at', 'found_key'],
};

/** `statement_timestamp()`: one value per statement, unlike `clock_timestamp()`, and its own inside a long transaction, unlike `now()`. */
export const NOW_MS = `floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint`;

/** What ends a turn: `$n` parameters for one record (`endTurn`), columns of `v` for several (`endTurns`, never a status). */
interface TurnValues {
  commit: string;
  status: string;
  next: string;
  delayMs: string;
  failures: string;
  priorityMs: string;
  keepNudge: string;
  missed: string;
}
const ONE_TURN: TurnValues = {
  commit: '$4::boolean',
  status: '$5::text',
  next: '$6::text',
  delayMs: '$7::bigint',
  failures: '$8::int',
  priorityMs: '$9::bigint',
  keepNudge: '$10::boolean',
  missed: '$12::boolean',
};
const MANY_TURNS: TurnValues = {
  commit: 'false',
  status: 'NULL::text',
  next: 'v.next',
  delayMs: 'v.delay_ms',
  failures: 'v.failures',
  priorityMs: 'v.priority_ms',
  keepNudge: 'v.keep_nudge',
  missed: 'v.missed',
};

/** The UPDATE … SET that ends a turn; the WHERE that checks the lease is the caller's. */
function endTurnSql(t: string, v: TurnValues): string {
  const now = NOW_MS;
  const ends = `(r.watching AND r.nudges = r.lease_nudges AND ${v.next} <> 'delay')`;
  const clearsNudge = `${ends} OR (${v.commit} AND r.nudges = r.lease_nudges AND NOT ${v.keepNudge})`;
  return `UPDATE ${t} AS r SET
  handled_status = CASE WHEN ${v.commit} THEN ${v.status} ELSE r.handled_status END,
  handled_at = CASE WHEN ${v.commit} THEN greatest(${now}, r.handled_at + 1) ELSE r.handled_at END,
  nudged_at = CASE WHEN ${clearsNudge} THEN NULL ELSE r.nudged_at END,
  event = CASE WHEN ${clearsNudge} THEN NULL ELSE r.event END,
  failures = ${v.failures},
  watching = r.watching AND NOT ${ends},
  due_at = CASE
    WHEN NOT r.watching OR ${ends} THEN NULL
    WHEN r.nudges <> r.lease_nudges AND ${v.failures} = 0 THEN ${now} - ${v.priorityMs}
    ELSE ${now} + ${v.delayMs} END,
  owed_at = CASE
    WHEN NOT r.watching OR ${ends} THEN NULL
    WHEN ${v.failures} <> 0 OR ${v.missed} THEN r.owed_at
    WHEN r.nudges <> r.lease_nudges OR ${v.next} <> 'delay' THEN ${now}
    ELSE ${now} + ${v.delayMs} END,
  ended_at = CASE WHEN ${ends} THEN now() ELSE r.ended_at END,
  lease_token = NULL, lease_owner = NULL, lease_until = NULL, lease_nudges = NULL`;
}

/** The columns of every statement that returns a record, for one parser. */
const state = (r: string) => `${r}.kind, ${r}.external_id_json, ${r}.watching, ${r}.watched_at::float8 AS watched_at, ${r}.handled_status,
  ${r}.handled_at::float8 AS handled_at, ${r}.nudged_at::float8 AS nudged_at, ${r}.event, ${r}.failures, ${r}.lease_token`;

/** Every value travels as a `$n` parameter. `external_id` is the id keyed as event ids are; `external_id_json` the id itself. */
export function statusStatementsFor(table: TableName) {
  const t = table.quoted;
  const now = NOW_MS;
  const pk = `r.kind = $1::text AND r.external_id = $2::text`;
  /** `least` ignores a NULL. */
  const owedNowOrBefore = `CASE WHEN r.watching THEN least(r.owed_at, ${now}) ELSE ${now} END`;
  const dueUnlessLeased = (at: string) =>
    `CASE WHEN r.lease_token IS NOT NULL AND r.lease_until > ${now} THEN r.lease_until ELSE ${at} END`;
  return {
    schema: [
      `CREATE TABLE IF NOT EXISTS ${t} (
  kind             text        NOT NULL,
  external_id      text        NOT NULL,
  external_id_json text        NOT NULL,
  watching         boolean     NOT NULL,
  watched_at       bigint      NOT NULL,
  due_at           bigint,
  handled_status   text,
  handled_at       bigint,
  nudged_at        bigint,
  event            text,
  nudges           bigint      NOT NULL DEFAULT 0,
  lease_nudges     bigint,
  failures         integer     NOT NULL DEFAULT 0,
  lease_token      text,
  lease_owner      text,
  lease_until      bigint,
  ended_at         timestamptz,
  owed_at          bigint,
  found_key        text,
  PRIMARY KEY (kind, external_id)
);`,
      // a 1.0 table gets owed_at; its watched rows owe a read since they were due or nudged
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS owed_at bigint;`,
      `UPDATE ${t} SET owed_at = greatest(due_at, nudged_at) WHERE watching AND owed_at IS NULL AND due_at IS NOT NULL;`,
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS found_key text;`,
      // partial indexes: only the rows each query looks for
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'due_at_idx')} ON ${t} (due_at) WHERE due_at IS NOT NULL;`,
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'ended_at_idx')} ON ${t} (ended_at) WHERE ended_at IS NOT NULL;`,
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'lease_owner_idx')} ON ${t} (lease_owner) WHERE lease_owner IS NOT NULL;`,
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'owed_at_idx')} ON ${t} (owed_at) WHERE owed_at IS NOT NULL;`,
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'found_key_idx')} ON ${t} (found_key, kind) WHERE found_key IS NOT NULL;`,
      // 1.0 made a CHECK on kind, refusing kinds added since: any single-column CHECK on kind goes (kinds live in src/kinds.ts)
      `DO $migrate$ DECLARE c text; BEGIN
  FOR c IN SELECT k.conname::text FROM pg_constraint k
    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
    WHERE k.conrelid = to_regclass('${t}') AND k.contype = 'c' AND cardinality(k.conkey) = 1 AND a.attname = 'kind'
  LOOP EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', '${t}', c); END LOOP;
END $migrate$;`,
    ],
    migrationNeeded: `SELECT c.conname::text AS name FROM pg_constraint c
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
  WHERE c.conrelid = to_regclass('${t}') AND c.contype = 'c' AND cardinality(c.conkey) = 1 AND a.attname = 'kind'`,
    /** $1 the kinds, comma-separated: each such CHECK and kind it does not name (1.0's was an allow-list). */
    migrationRefuses: `SELECT c.conname::text AS name, k.kind FROM pg_constraint c
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
  CROSS JOIN unnest(string_to_array($1::text, ',')) AS k(kind)
  WHERE c.conrelid = to_regclass('${t}') AND c.contype = 'c' AND cardinality(c.conkey) = 1 AND a.attname = 'kind'
    AND strpos(pg_get_constraintdef(c.oid), quote_literal(k.kind)) = 0
  ORDER BY c.conname, k.kind`,
    refusedValues: [STATUS_KINDS.join(',')],
    schemaLock: schemaLockSql(table),
    shape: shapeSql(table, STATUS_TABLE_SHAPE),
    /** $1 kind, $2 key, $3 id JSON. */
    watch: `INSERT INTO ${t} AS r (kind, external_id, external_id_json, watching, watched_at, due_at, owed_at)
VALUES ($1::text, $2::text, $3::text, true, ${now}, ${now}, ${now})
ON CONFLICT (kind, external_id) DO UPDATE
  SET watching = true, watched_at = ${now}, ended_at = NULL, due_at = ${dueUnlessLeased(now)}, owed_at = ${now}
  WHERE NOT r.watching`,
    /** $1 kind, $2 key, $3 id JSON, $4 event JSON (or null), $5 priority ms. `nudges` tells a turn a nudge came during it. */
    nudge: `INSERT INTO ${t} AS r (kind, external_id, external_id_json, watching, watched_at, due_at, nudged_at, event, nudges, owed_at)
VALUES ($1::text, $2::text, $3::text, true, ${now}, ${now} - $5::bigint, ${now}, $4::text, 1, ${now})
ON CONFLICT (kind, external_id) DO UPDATE
  SET nudged_at = ${now}, event = coalesce($4::text, r.event), nudges = r.nudges + 1, owed_at = ${owedNowOrBefore},
    watched_at = CASE WHEN r.watching THEN r.watched_at ELSE ${now} END,
    watching = true, ended_at = NULL,
    due_at = CASE
      WHEN r.lease_token IS NOT NULL AND r.lease_until > ${now} THEN r.lease_until
      WHEN r.watching AND r.failures > 0 THEN r.due_at
      ELSE ${now} - $5::bigint END`,
    /** When an event last came, in `watched_at` of a row of kind `_tracker`: never watched, due, owed or ended, so no query sees it. */
    noteEvent: `INSERT INTO ${t} AS r (kind, external_id, external_id_json, watching, watched_at)
VALUES ('_tracker', 'last-event', '""', false, ${now})
ON CONFLICT (kind, external_id) DO UPDATE SET watched_at = greatest(r.watched_at, excluded.watched_at)`,
    lastEvent: `SELECT r.watched_at::float8 AS at, (${now} - r.watched_at)::float8 AS age FROM ${t} r
WHERE r.kind = '_tracker' AND r.external_id = 'last-event'`,
    /** $1 kind, $2 key. */
    unwatch: `UPDATE ${t} AS r SET watching = false, due_at = NULL, owed_at = NULL, nudged_at = NULL, event = NULL, ended_at = now()
WHERE ${pk} AND r.watching`,
    /**
     * $1 limit, $2 lease ms, $3 owner, $4 token base. `ORDER BY due_at LIMIT n` is an index scan that stops after n rows; the lease
     * test only guards a row written otherwise (a leased row is due at its lease's end). A row without `owed_at` is from 1.0.
     */
    claimDue: `WITH due AS (
  SELECT kind, external_id, due_at FROM ${t}
  WHERE due_at IS NOT NULL AND due_at <= ${now} AND (lease_token IS NULL OR lease_until <= ${now})
  ORDER BY due_at
  LIMIT $1::int
  FOR UPDATE SKIP LOCKED
), numbered AS (
  SELECT kind, external_id, due_at, row_number() OVER (ORDER BY due_at, kind, external_id) AS n FROM due
)
UPDATE ${t} AS r
SET lease_token = $4::text || ':' || d.n, lease_owner = $3::text, lease_until = ${now} + $2::bigint,
  due_at = ${now} + $2::bigint, lease_nudges = r.nudges, owed_at = coalesce(r.owed_at, greatest(d.due_at, r.nudged_at))
FROM numbered d
WHERE r.kind = d.kind AND r.external_id = d.external_id
RETURNING d.n, d.due_at::float8 AS was_due_at, ${now}::float8 AS claimed_at, r.found_key, ${state('r')}`,
    extend: `UPDATE ${t} AS r SET lease_until = ${now} + $4::bigint, due_at = CASE WHEN r.watching THEN ${now} + $4::bigint ELSE r.due_at END
WHERE ${pk} AND r.lease_token = $3::text
RETURNING 1 AS extended`,
    /**
     * $1 kind, $2 key, $3 token, $4 commit, $5 status, $6 next, $7 delay ms, $8 failures, $9 priority ms, $10 keep the nudge, $11 the
     * txid that must run it (null: any), $12 missed. Every condition is on the row, no CTE: PostgreSQL re-checks them on a row another
     * session changed meanwhile, so a lease taken meanwhile is never ended.
     */
    endTurn: `${endTurnSql(t, ONE_TURN)}
WHERE ${pk} AND r.lease_token = $3::text AND ($11::bigint IS NULL OR txid_current() = $11::bigint)
RETURNING 1 AS ended`,
    /** As `endTurn` without a status, for several records: arrays of `endTurn`'s values, one element per record, none twice. */
    endTurns: `${endTurnSql(t, MANY_TURNS)}
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::bigint[], $8::boolean[], $9::boolean[])
  AS v(kind, key, token, next, delay_ms, failures, priority_ms, keep_nudge, missed)
WHERE r.kind = v.kind AND r.external_id = v.key AND r.lease_token = v.token
RETURNING r.kind, r.external_id`,
    /** $1 kind, $2 key, $3 token. */
    release: `UPDATE ${t} AS r SET lease_token = NULL, lease_owner = NULL, lease_until = NULL, lease_nudges = NULL,
  due_at = CASE WHEN r.watching THEN ${now} ELSE NULL END
WHERE ${pk} AND r.lease_token = $3::text`,
    /** $1 owner. A lapsed lease is left: its record is due already. */
    reclaim: `WITH ended AS (
  UPDATE ${t} AS r SET lease_token = NULL, lease_owner = NULL, lease_until = NULL, lease_nudges = NULL,
    due_at = CASE WHEN r.watching THEN ${now} ELSE NULL END
  WHERE r.lease_owner = $1::text AND r.lease_token IS NOT NULL AND r.lease_until > ${now}
  RETURNING 1
)
SELECT count(*)::int AS reclaimed FROM ended`,
    /** The partial `due_at` index holds exactly the watched rows. */
    countWatched: `SELECT count(*)::float8 AS watched FROM ${t} WHERE due_at IS NOT NULL`,
    overdue: `SELECT count(*)::float8 AS overdue, coalesce(${now} - min(owed_at), 0)::float8 AS oldest
FROM ${t} WHERE owed_at IS NOT NULL AND owed_at < ${now}`,
    get: `SELECT ${state('r')} FROM ${t} r WHERE ${pk}`,
    /** $1 kind, $2 key, $3 found key. Written only when it differs. */
    rememberKey: `UPDATE ${t} AS r SET found_key = $3::text WHERE ${pk} AND r.found_key IS DISTINCT FROM $3::text`,
    /** $1 kind, $2 found key. */
    findByKey: `SELECT r.external_id_json FROM ${t} r WHERE r.found_key = $2::text AND r.kind = $1::text
ORDER BY r.watching DESC LIMIT 1`,
    /**
     * $1 kind, $2 key. Two `onChange` transactions of one record never overlap, even after a lease lapsed. Not the row's lock:
     * `nudge`, `watch` and the heartbeat's `extend` would wait for the whole `onChange`.
     */
    recordLock: `SELECT pg_advisory_xact_lock(hashtext(${resolvedNameSql(table)}), hashtext($1::text || ':' || $2::text))`,
    /** $1 kind, $2 key, $3 token. Run after `recordLock`, in a new snapshot. */
    held: `SELECT r.lease_token = $3::text AS held FROM ${t} r WHERE ${pk}`,
    /** $1 retention seconds, $2 batch size. */
    purge: `WITH gone AS (
  DELETE FROM ${t} WHERE (kind, external_id) IN (
    SELECT kind, external_id FROM ${t}
    WHERE ended_at IS NOT NULL AND ended_at < now() - $1::float8 * interval '1 second' AND NOT watching AND lease_token IS NULL
    ORDER BY ended_at
    LIMIT $2::int
    FOR UPDATE SKIP LOCKED
  )
  RETURNING 1
)
SELECT count(*)::int AS purged FROM gone`,
  };
}

export type StatusStatements = ReturnType<typeof statusStatementsFor>;
