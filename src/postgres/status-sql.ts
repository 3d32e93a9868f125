import { indexName, resolvedNameSql, schemaLockSql, shapeSql, type TableName, type TableShape } from './sql.js';

/** The status store's table when the `table` option is not given. */
export const DEFAULT_STATUS_TABLE = 'checkout_status_records';

/**
 * The columns {@link statusStatementsFor} reads and writes. Times the tracker passes (`now`) are
 * milliseconds since the epoch in `bigint` columns, as the contract keeps the caller's clock;
 * `ended_at` (retention) is PostgreSQL's own clock, as the event store's TTL is.
 */
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
  ],
  primaryKey: ['kind', 'external_id'],
  deterministic: ['kind', 'external_id'],
  // claimDue finds due rows through it; without it every claim would scan the table
  indexed: ['due_at', 'ended_at'],
};

/** The columns every statement that returns a record returns, so one parser reads them all (`r`: the table's alias). */
const state = (r: string) => `${r}.kind, ${r}.external_id_json, ${r}.watching, ${r}.watched_at::float8 AS watched_at, ${r}.handled_status,
  ${r}.handled_at::float8 AS handled_at, ${r}.nudged_at::float8 AS nudged_at, ${r}.event, ${r}.failures, ${r}.lease_token`;

/**
 * The statements of one status table. `$n` are parameters; every value travels as one, never in
 * the text. A record's key is `(kind, external_id)`, `external_id` being the id as the event
 * stores key it (hashed when PostgreSQL text cannot hold it); `external_id_json` keeps the id
 * itself, JSON-encoded (a NUL or a lone surrogate survives as an escape).
 */
export function statusStatementsFor(table: TableName) {
  const t = table.quoted;
  const pk = `r.kind = $1::text AND r.external_id = $2::text`;
  /** Due at the end of a live lease, else at `at` (watch and nudge). `$4` is now. */
  /** The turn ends the watch: watched, no nudge since the claim, and `next` is not a delay (`$7`). */
  const ends = `(r.watching AND r.nudges = r.lease_nudges AND $7::text <> 'delay')`;
  const dueUnlessLeased = (at: string) => `CASE WHEN r.lease_token IS NOT NULL AND r.lease_until > $4::bigint THEN r.lease_until ELSE ${at} END`;
  return {
    schema: [
      `CREATE TABLE IF NOT EXISTS ${t} (
  kind             text        NOT NULL CHECK (kind IN ('order', 'withdrawal')),
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
  PRIMARY KEY (kind, external_id)
);`,
      // partial: records whose watch ended (NULL due_at) cost the index nothing
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'due_at_idx')} ON ${t} (due_at) WHERE due_at IS NOT NULL;`,
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'ended_at_idx')} ON ${t} (ended_at) WHERE ended_at IS NOT NULL;`,
    ],
    schemaLock: schemaLockSql(table),
    shape: shapeSql(table, STATUS_TABLE_SHAPE),
    /** $1 kind, $2 key, $3 id JSON, $4 now. A watched record keeps its schedule; otherwise a watch starts now. */
    watch: `INSERT INTO ${t} AS r (kind, external_id, external_id_json, watching, watched_at, due_at)
VALUES ($1::text, $2::text, $3::text, true, $4::bigint, $4::bigint)
ON CONFLICT (kind, external_id) DO UPDATE
  SET watching = true, watched_at = $4::bigint, ended_at = NULL, due_at = ${dueUnlessLeased('$4::bigint')}
  WHERE NOT r.watching`,
    /**
     * $1 kind, $2 key, $3 id JSON, $4 now, $5 event JSON (or null), $6 priority ms. Remembers the
     * nudge (the counter tells a turn that a nudge came during it), watches the record when it is
     * not watched, and makes it due ahead of the backlog unless a live lease holds it.
     */
    nudge: `INSERT INTO ${t} AS r (kind, external_id, external_id_json, watching, watched_at, due_at, nudged_at, event, nudges)
VALUES ($1::text, $2::text, $3::text, true, $4::bigint, $4::bigint - $6::bigint, $4::bigint, $5::text, 1)
ON CONFLICT (kind, external_id) DO UPDATE
  SET nudged_at = $4::bigint, event = coalesce($5::text, r.event), nudges = r.nudges + 1,
    watched_at = CASE WHEN r.watching THEN r.watched_at ELSE $4::bigint END,
    watching = true, ended_at = NULL,
    due_at = ${dueUnlessLeased('$4::bigint - $6::bigint')}`,
    /** $1 kind, $2 key. Ends the watch (the handled status stays for retention, counted from now). */
    unwatch: `UPDATE ${t} AS r SET watching = false, due_at = NULL, nudged_at = NULL, event = NULL, ended_at = now()
WHERE ${pk} AND r.watching`,
    /**
     * $1 now, $2 limit, $3 lease ms, $4 owner, $5 token base. Takes the due rows earliest first
     * through the `due_at` index (`ORDER BY due_at LIMIT n`: an index scan that stops after n rows,
     * never a scan of every record), skipping rows another claimer or transaction holds, and writes
     * each one's lease (owner, token, end) and its new due time in the same statement. Returns each
     * row's due time before the claim (`was_due_at`, read under the row lock) for the lag metric.
     */
    claimDue: `WITH due AS (
  SELECT kind, external_id, due_at FROM ${t}
  WHERE due_at IS NOT NULL AND due_at <= $1::bigint
  ORDER BY due_at
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
), numbered AS (
  SELECT kind, external_id, due_at, row_number() OVER (ORDER BY due_at, kind, external_id) AS n FROM due
)
UPDATE ${t} AS r
SET lease_token = $5::text || ':' || d.n, lease_owner = $4::text, lease_until = $1::bigint + $3::bigint,
  due_at = $1::bigint + $3::bigint, lease_nudges = r.nudges
FROM numbered d
WHERE r.kind = d.kind AND r.external_id = d.external_id
RETURNING d.n, d.due_at::float8 AS was_due_at, ${state('r')}`,
    /** $1 kind, $2 key, $3 token, $4 lease end. */
    extend: `UPDATE ${t} AS r SET lease_until = $4::bigint, due_at = CASE WHEN r.watching THEN $4::bigint ELSE r.due_at END
WHERE ${pk} AND r.lease_token = $3::text
RETURNING 1 AS extended`,
    /**
     * $1 kind, $2 key, $3 token, $4 now, $5 commit (records $6 as the handled status), $6 status,
     * $7 next ('delay' | 'final' | 'max-age'), $8 delay ms, $9 failures, $10 priority ms, $11 keep
     * the nudge, $12 the txid that must run it (null: any). Checks the lease and ends the turn in
     * one statement: a nudge that came during the turn makes the record due at once; an ended
     * watch keeps its handled status for the retention. Every condition is on the row itself (no
     * CTE read beforehand): when the UPDATE waits for a row another session changed, PostgreSQL
     * re-checks these conditions on the row as committed, so a lease taken meanwhile is never ended.
     */
    endTurn: `UPDATE ${t} AS r SET
  handled_status = CASE WHEN $5::boolean THEN $6::text ELSE r.handled_status END,
  handled_at = CASE WHEN $5::boolean THEN $4::bigint ELSE r.handled_at END,
  nudged_at = CASE WHEN ${ends} OR ($5::boolean AND r.nudges = r.lease_nudges AND NOT $11::boolean) THEN NULL ELSE r.nudged_at END,
  event = CASE WHEN ${ends} OR ($5::boolean AND r.nudges = r.lease_nudges AND NOT $11::boolean) THEN NULL ELSE r.event END,
  failures = $9::int,
  watching = r.watching AND NOT ${ends},
  due_at = CASE
    WHEN NOT r.watching OR ${ends} THEN NULL
    WHEN r.nudges <> r.lease_nudges THEN $4::bigint - $10::bigint
    ELSE $4::bigint + $8::bigint END,
  ended_at = CASE WHEN ${ends} THEN now() ELSE r.ended_at END,
  lease_token = NULL, lease_owner = NULL, lease_until = NULL, lease_nudges = NULL
WHERE ${pk} AND r.lease_token = $3::text AND ($12::bigint IS NULL OR txid_current() = $12::bigint)
RETURNING 1 AS ended`,
    /** $1 kind, $2 key, $3 token, $4 now. Gives the record back, due at once while watched. */
    release: `UPDATE ${t} AS r SET lease_token = NULL, lease_owner = NULL, lease_until = NULL, lease_nudges = NULL,
  due_at = CASE WHEN r.watching THEN $4::bigint ELSE NULL END
WHERE ${pk} AND r.lease_token = $3::text`,
    /**
     * The records watched now: a count over the partial `due_at` index, which holds exactly the
     * watched rows (a watched row always has a due time; `unwatch` and an ended turn clear it).
     */
    countWatched: `SELECT count(*)::float8 AS watched FROM ${t} WHERE due_at IS NOT NULL`,
    /** $1 kind, $2 key. */
    get: `SELECT ${state('r')} FROM ${t} r WHERE ${pk}`,
    /**
     * $1 kind, $2 key. Inside a transaction: waits for (bounded by the transaction's
     * `statement_timeout`) and takes the record's transaction-scoped advisory lock, so two
     * `onChange` transactions of one record never overlap, even when a lease lapsed. An advisory
     * lock rather than the row's lock: the row stays free for `nudge`, `watch` and the heartbeat's
     * `extend`, which would otherwise wait for the whole `onChange`.
     */
    recordLock: `SELECT pg_advisory_xact_lock(hashtext(${resolvedNameSql(table)}), hashtext($1::text || ':' || $2::text))`,
    /** $1 kind, $2 key, $3 token. Whether the lease still holds the record (run after {@link recordLock}, in a new snapshot). */
    held: `SELECT r.lease_token = $3::text AS held FROM ${t} r WHERE ${pk}`,
    /**
     * $1 retention seconds, $2 batch size. Deletes records whose watch ended before the retention,
     * found through the `ended_at` index, skipping rows anybody holds.
     */
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

/** The SQL statements of one status table, as {@link statusStatementsFor} returns them. */
export type StatusStatements = ReturnType<typeof statusStatementsFor>;
