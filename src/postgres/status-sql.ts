import { STATUS_KINDS } from '../kinds.js';
import { indexName, resolvedNameSql, schemaLockSql, shapeSql, type TableName, type TableShape } from './sql.js';

/** The status store's table when the `table` option is not given. */
export const DEFAULT_STATUS_TABLE = 'checkout_status_records';

/**
 * The columns {@link statusStatementsFor} reads and writes. Every time is PostgreSQL's own clock
 * (one clock for the fleet, never a tracker's): the record's times are milliseconds since the epoch
 * in `bigint` columns, taken from {@link NOW_MS} inside each statement; `ended_at` (retention) is
 * a `timestamptz`, as the event store's TTL is.
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
    ['owed_at', 'bigint'],
    ['found_key', 'text'],
  ],
  primaryKey: ['kind', 'external_id'],
  deterministic: ['kind', 'external_id'],
  // claimDue finds due rows through due_at, the purge ended rows through ended_at, reclaim an
  // owner's leases through lease_owner, overdue() the owed reads through owed_at, findByKey a record
  // through found_key: without them each would scan the table
  indexed: ['due_at', 'ended_at', 'lease_owner', 'owed_at', 'found_key'],
};

/**
 * PostgreSQL's clock in milliseconds since the epoch: `statement_timestamp()`, the time the
 * statement arrived, which is one value however often a statement reads it (unlike
 * `clock_timestamp()`) and, unlike `now()`, is the statement's own time inside a long transaction.
 */
export const NOW_MS = `floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint`;

/** What ends a turn, as SQL: `$n` parameters for one record (`endTurn`), columns of `v` for several (`endTurns`, never a status). */
interface TurnValues {
  /** Records a status: the handled status is `status`. */
  commit: string;
  status: string;
  /** 'delay' | 'final' | 'max-age' | 'not-found' */
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

/**
 * The UPDATE … SET that ends a turn, for `v`'s values (the WHERE that checks the lease is the
 * caller's). A nudge that came during a turn that did not fail makes the record due at once (after
 * a failed one, the back-off holds); a turn that met the schedule (no failures, not missed) owes the
 * next read at its due time (now after a nudge), a failed or missed one leaves the read it owed; an
 * ended watch keeps its handled status for the retention.
 */
function endTurnSql(t: string, v: TurnValues): string {
  const now = NOW_MS;
  /** The turn ends the watch: watched, no nudge since the claim, and `next` is not a delay. */
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
  const now = NOW_MS;
  const pk = `r.kind = $1::text AND r.external_id = $2::text`;
  /** Watched: a read owed now, or before when one was owed before (`least` ignores a NULL); else a watch starts, owing one now. */
  const owedNowOrBefore = `CASE WHEN r.watching THEN least(r.owed_at, ${now}) ELSE ${now} END`;
  /** Due at the end of a live lease (on the database's clock), else at `at` (watch and nudge). */
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
      // added after 1.0.0: a table made before gets it here (NULL), then the watched rows owe
      // their read from their due time, or their nudge when later (a nudged row is due a day
      // early); rows already migrated have owed_at, so the UPDATE finds none
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS owed_at bigint;`,
      `UPDATE ${t} SET owed_at = greatest(due_at, nudged_at) WHERE watching AND owed_at IS NULL AND due_at IS NOT NULL;`,
      // 1.1: a table made by 1.0 gets the column where a read's key (an order's tradeId) is kept
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS found_key text;`,
      // partial: records whose watch ended (NULL due_at) cost the index nothing
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'due_at_idx')} ON ${t} (due_at) WHERE due_at IS NOT NULL;`,
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'ended_at_idx')} ON ${t} (ended_at) WHERE ended_at IS NOT NULL;`,
      // partial: only leased rows (a few per tracker process) are in it, for reclaim(owner)
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'lease_owner_idx')} ON ${t} (lease_owner) WHERE lease_owner IS NOT NULL;`,
      // partial: only watched rows owe a read, for overdue()
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'owed_at_idx')} ON ${t} (owed_at) WHERE owed_at IS NOT NULL;`,
      // partial: only records whose read revealed a key (orders with a trade)
      `CREATE INDEX IF NOT EXISTS ${indexName(table.name, 'found_key_idx')} ON ${t} (found_key, kind) WHERE found_key IS NOT NULL;`,
      // 1.0 made the table with CHECK (kind IN ('order', 'withdrawal')): a kind added later would be
      // refused at run time, so any single-column CHECK on kind goes; the kinds live in the SDK's
      // table of kinds, never in SQL
      `DO $migrate$ DECLARE c text; BEGIN
  FOR c IN SELECT k.conname::text FROM pg_constraint k
    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
    WHERE k.conrelid = to_regclass('${t}') AND k.contype = 'c' AND cardinality(k.conkey) = 1 AND a.attname = 'kind'
  LOOP EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', '${t}', c); END LOOP;
END $migrate$;`,
    ],
    /** Rows when a table made by an earlier version needs `schema` run again (a 1.0 CHECK on kind). */
    migrationNeeded: `SELECT c.conname::text AS name FROM pg_constraint c
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
  WHERE c.conrelid = to_regclass('${t}') AND c.contype = 'c' AND cardinality(c.conkey) = 1 AND a.attname = 'kind'`,
    /**
     * $1 the kinds, comma-separated. One row (`name`, `kind`) per such CHECK and kind it refuses: a
     * kind its definition does not name as a literal (1.0's was an allow-list, `kind IN (…)`).
     */
    migrationRefuses: `SELECT c.conname::text AS name, k.kind FROM pg_constraint c
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
  CROSS JOIN unnest(string_to_array($1::text, ',')) AS k(kind)
  WHERE c.conrelid = to_regclass('${t}') AND c.contype = 'c' AND cardinality(c.conkey) = 1 AND a.attname = 'kind'
    AND strpos(pg_get_constraintdef(c.oid), quote_literal(k.kind)) = 0
  ORDER BY c.conname, k.kind`,
    refusedValues: [STATUS_KINDS.join(',')],
    schemaLock: schemaLockSql(table),
    shape: shapeSql(table, STATUS_TABLE_SHAPE),
    /** $1 kind, $2 key, $3 id JSON. A watched record keeps its schedule; otherwise a watch starts now, its read owed now. */
    watch: `INSERT INTO ${t} AS r (kind, external_id, external_id_json, watching, watched_at, due_at, owed_at)
VALUES ($1::text, $2::text, $3::text, true, ${now}, ${now}, ${now})
ON CONFLICT (kind, external_id) DO UPDATE
  SET watching = true, watched_at = ${now}, ended_at = NULL, due_at = ${dueUnlessLeased(now)}, owed_at = ${now}
  WHERE NOT r.watching`,
    /**
     * $1 kind, $2 key, $3 id JSON, $4 event JSON (or null), $5 priority ms. Remembers the nudge
     * (the counter tells a turn that a nudge came during it), watches the record when it is not
     * watched, and makes it due ahead of the backlog unless a live lease holds it (its end of turn
     * decides) or its last turn failed (the back-off holds; the event is kept for the next read).
     * A read is owed now, unless one was owed earlier.
     */
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
    /**
     * When a nudge with an event last came, in a row of its own (`kind` `_tracker`, never a record's
     * kind: never watched, due, owed or ended, so no query of records sees it), its time in
     * `watched_at`. Run by `nudge` with an event, at most once a second per store.
     */
    noteEvent: `INSERT INTO ${t} AS r (kind, external_id, external_id_json, watching, watched_at)
VALUES ('_tracker', 'last-event', '""', false, ${now})
ON CONFLICT (kind, external_id) DO UPDATE SET watched_at = greatest(r.watched_at, excluded.watched_at)`,
    /** When the last event came (see noteEvent) and how long ago, on PostgreSQL's clock; no row before the first. */
    lastEvent: `SELECT r.watched_at::float8 AS at, (${now} - r.watched_at)::float8 AS age FROM ${t} r
WHERE r.kind = '_tracker' AND r.external_id = 'last-event'`,
    /** $1 kind, $2 key. Ends the watch (the handled status stays for retention, counted from now). */
    unwatch: `UPDATE ${t} AS r SET watching = false, due_at = NULL, owed_at = NULL, nudged_at = NULL, event = NULL, ended_at = now()
WHERE ${pk} AND r.watching`,
    /**
     * $1 limit, $2 lease ms, $3 owner, $4 token base. Takes the rows due on the database's clock,
     * earliest first, through the `due_at` index (`ORDER BY due_at LIMIT n`: an index scan that
     * stops after n rows, never a scan of every record), skipping rows another claimer or
     * transaction holds and rows under a live lease (a leased row is due at its lease's end, so
     * this only guards against a row written otherwise), and writes each one's lease (owner, token,
     * end) and its new due time in the same statement. Returns each row's due time before the
     * claim (`was_due_at`, read under the row lock) for the lag metric, and the clock of the claim.
     * A row with no owed read (written by a version before `owed_at`) owes it since its due time,
     * or its nudge when later (a nudged row is due a day early). `found_key` lets `rememberKey`
     * skip a key the row already holds.
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
    /** $1 kind, $2 key, $3 token, $4 lease ms. */
    extend: `UPDATE ${t} AS r SET lease_until = ${now} + $4::bigint, due_at = CASE WHEN r.watching THEN ${now} + $4::bigint ELSE r.due_at END
WHERE ${pk} AND r.lease_token = $3::text
RETURNING 1 AS extended`,
    /**
     * $1 kind, $2 key, $3 token, $4 commit (records $5 as the handled status), $5 status, $6 next
     * ('delay' | 'final' | 'max-age' | 'not-found'), $7 delay ms, $8 failures, $9 priority ms, $10
     * keep the nudge, $11 the txid that must run it (null: any), $12 missed. Checks the lease and
     * ends the turn (see {@link endTurnSql}) in one statement. Every condition is on the row itself
     * (no CTE read beforehand): when the UPDATE
     * waits for a row another session changed, PostgreSQL re-checks these conditions on the row as
     * committed, so a lease taken meanwhile is never ended.
     */
    endTurn: `${endTurnSql(t, ONE_TURN)}
WHERE ${pk} AND r.lease_token = $3::text AND ($11::bigint IS NULL OR txid_current() = $11::bigint)
RETURNING 1 AS ended`,
    /**
     * $1 kinds, $2 keys, $3 tokens, $4 next, $5 delays ms, $6 failures, $7 priorities ms, $8 keep
     * the nudge, $9 missed (arrays, one element per record, none twice): the reschedules of several
     * records in one statement, each exactly as `endTurn` without a status would end it, each only
     * while its row holds its token (re-checked, as there, on a row another session changed
     * meanwhile). Returns the records it ended.
     */
    endTurns: `${endTurnSql(t, MANY_TURNS)}
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::bigint[], $8::boolean[], $9::boolean[])
  AS v(kind, key, token, next, delay_ms, failures, priority_ms, keep_nudge, missed)
WHERE r.kind = v.kind AND r.external_id = v.key AND r.lease_token = v.token
RETURNING r.kind, r.external_id`,
    /** $1 kind, $2 key, $3 token. Gives the record back, due at once while watched. */
    release: `UPDATE ${t} AS r SET lease_token = NULL, lease_owner = NULL, lease_until = NULL, lease_nudges = NULL,
  due_at = CASE WHEN r.watching THEN ${now} ELSE NULL END
WHERE ${pk} AND r.lease_token = $3::text`,
    /**
     * $1 owner. Ends every live lease `owner` holds (found through the partial `lease_owner`
     * index, never a scan), each watched record due at once, its nudge, event and failures kept. A
     * lapsed lease is left as it is: its record is due already, since the lease's end.
     */
    reclaim: `WITH ended AS (
  UPDATE ${t} AS r SET lease_token = NULL, lease_owner = NULL, lease_until = NULL, lease_nudges = NULL,
    due_at = CASE WHEN r.watching THEN ${now} ELSE NULL END
  WHERE r.lease_owner = $1::text AND r.lease_token IS NOT NULL AND r.lease_until > ${now}
  RETURNING 1
)
SELECT count(*)::int AS reclaimed FROM ended`,
    /**
     * The records watched now: a count over the partial `due_at` index, which holds exactly the
     * watched rows (a watched row always has a due time; `unwatch` and an ended turn clear it).
     */
    countWatched: `SELECT count(*)::float8 AS watched FROM ${t} WHERE due_at IS NOT NULL`,
    /**
     * The watched rows whose read was owed before now, and how late the earliest is (0: none):
     * through the partial `owed_at` index, reading only the overdue rows.
     */
    overdue: `SELECT count(*)::float8 AS overdue, coalesce(${now} - min(owed_at), 0)::float8 AS oldest
FROM ${t} WHERE owed_at IS NOT NULL AND owed_at < ${now}`,
    /** $1 kind, $2 key. */
    get: `SELECT ${state('r')} FROM ${t} r WHERE ${pk}`,
    /** $1 kind, $2 key, $3 found key (`tradeId:t-1`). Written only when it differs, so a read that shows the same key again writes nothing. */
    rememberKey: `UPDATE ${t} AS r SET found_key = $3::text WHERE ${pk} AND r.found_key IS DISTINCT FROM $3::text`,
    /** $1 kind, $2 found key. The record whose read revealed it, a watched one first. */
    findByKey: `SELECT r.external_id_json FROM ${t} r WHERE r.found_key = $2::text AND r.kind = $1::text
ORDER BY r.watching DESC LIMIT 1`,
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
