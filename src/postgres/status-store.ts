import { checkOptions } from '../internal/arguments.js';
import { isStatusKind } from '../kinds.js';
import { typeName } from '../internal/type-name.js';
import { quote } from '../internal/quote.js';
import { eventRowId } from '../stores/event-key.js';
import { checkExternalId, checkFoundKey, checkKind, checkOwner, wholeNumber } from '../stores/arguments.js';
import { projectEvent } from '../stores/event-projection.js';
import { NUDGE_PRIORITY_MS } from '../stores/status-store.js';
import type {
  LastEvent,
  OverdueRecords,
  ClaimDueRequest,
  ClaimedStatusRecord,
  StatusKind,
  StatusLease,
  StatusRecordState,
  StatusStore,
  StatusTurn,
} from '../stores/status-store.js';
import type { TransactOptions } from '../stores/event-store.js';
import type { WebhookEvent } from '../webhook-event.js';
import { driverOf, type Driver, type PostgresJsSqlLike, type PostgresPoolLike, type PostgresTransaction } from './driver.js';
import { PostgresStoreError, PostgresTransactionError, storeError, type PostgresStoreOperation } from './errors.js';
import { DEFAULT_STATUS_TABLE, statusStatementsFor, type StatusStatements } from './status-sql.js';
import { tableName } from './sql.js';
import { leaseBounds, runPartnerWork, runProvenTransaction, transactFailure } from './transaction.js';
import { ensureTable } from './schema.js';
import { recordId, TurnEnds } from './turn-ends.js';

/** Options of {@link PostgresStatusStore}. */
export interface PostgresStatusStoreOptions<Pool extends PostgresPoolLike = PostgresPoolLike, Transactional extends boolean = boolean> {
  /**
   * A node-postgres `Pool` (`new pg.Pool(...)`, `pg` v8) or a postgres.js `sql` (`postgres(url)`,
   * `postgres` v3, plain mode only). The store never connects, ends or configures it; give it a
   * connection timeout (`pg`: `connectionTimeoutMillis`, postgres.js: `connect_timeout`).
   */
  pool: Pool;
  /**
   * The table, `name` or `schema.name` (letters, digits, `_`, `$`; used quoted, as written).
   * Trackers whose stores share a table share their records. Create it with
   * {@link PostgresStatusStore.ensureSchema} or your migrations (the SQL is in `schemaSql`).
   * @default 'checkout_status_records'
   */
  table?: string | undefined;
  /**
   * Run `onChange` inside a transaction of the store and hand it that transaction
   * (`change.transaction`, a `pg` `PoolClient`): the partner's writes through it commit together
   * with the record's new handled status, so they happen exactly once per status change. Needs a
   * `pg` Pool (a postgres.js `sql` is refused: a type error, and a `PostgresTransactionError` at
   * run time).
   * @default false
   */
  transactional?: (Pool extends PostgresJsSqlLike ? false : Transactional) | undefined;
  /**
   * In transactional mode, the longest an `onChange` transaction may last, in milliseconds:
   * PostgreSQL ends it past this (`statement_timeout`, `idle_in_transaction_session_timeout`), and
   * the store destroys its connection a grace later when that end never arrives (a blackholed
   * network). The change is then not recorded and is handed over again. The tracker ends it sooner
   * when it gives `onChange` up (its `maxHandlingMs`, a drain that gave up): keep this at least that.
   * @default 60_000 (the tracker's default `maxHandlingMs`)
   */
  transactionTimeoutMs?: number | undefined;
  /**
   * How long a record's last handled status is kept after its watch ended, in seconds, so a
   * replayed provider event finds it and calls nothing. Older records are purged in batches of
   * 1,000, at most once a minute per store instance. Keep it far longer than the provider retries a
   * delivery (and than the event store's `ttlSeconds`).
   * @default 2_592_000 (30 days)
   */
  retentionSeconds?: number | undefined;
  /**
   * How long, in milliseconds, the store waits for one of its statements outside an `onChange`
   * transaction (its retries after a serialization failure or a deadlock included) before it
   * rejects with `PostgresStoreError`; with `pg`, that connection is then destroyed, not returned
   * to the pool, so a dead network costs a bounded wait.
   * @default 10_000
   */
  statementTimeoutMs?: number | undefined;
}

/**
 * Runs one status change inside the store's transaction; see
 * `TransactionalStatusStore.transact` (`checkout-partner-sdk/tracker`). `Transaction` is the `pg` `PoolClient` the pool gives.
 *
 * @inline
 */
export type PostgresStatusTransact<Transaction> = (
  lease: StatusLease,
  status: string | null,
  turn: StatusTurn,
  work: (transaction: Transaction) => Promise<void>,
  options?: TransactOptions,
) => Promise<boolean>;

const OPTIONS = ['pool', 'table', 'transactional', 'transactionTimeoutMs', 'retentionSeconds', 'statementTimeoutMs'];
const DEFAULT_RETENTION_SECONDS = 30 * 24 * 60 * 60;
// the tracker's default maxHandlingMs (not imported: the PostgreSQL entry does not load the tracker)
const DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
/** Rows one purge deletes at most, so a purge never holds many row locks or runs long. */
const PURGE_BATCH = 1_000;
const PURGE_EVERY_MS = 60_000;

/** Thrown out of the transaction callback so it rolls back: the lease was lost, `work` never ran. */
class LeaseLost {}

/**
 * A status tracker's store in the partner's own PostgreSQL, shared by any number of tracker
 * processes: one row per record (primary key `kind, external_id`), and an indexed `due_at` column
 * through which `claimDue` takes the due records (`ORDER BY due_at LIMIT n … FOR UPDATE SKIP
 * LOCKED`, one statement that also writes each lease's owner, token and end), never by scanning
 * every record. `extend`, `commit`, `reschedule` and `release` are one statement each that acts
 * only while the row holds the caller's lease token, so a process whose lease passed records
 * nothing; reschedules that arrive in the same turn of the event loop share one statement (each
 * row checked against its own token). A record's last handled status is kept for
 * `retentionSeconds` after its watch ends, then purged in bounded batches.
 *
 * **Transactional mode** (`transactional: true`, `pg` only): the tracker calls `transact` instead
 * of `commit`. It opens a proven transaction (as `PostgresEventStore`'s: its `txid_current()` is
 * recorded at `BEGIN`), takes the record's advisory lock (two `onChange` transactions of one
 * record never overlap) and checks the lease token, runs `onChange({ ...change, transaction })`,
 * then records the handled status in the same transaction with one statement that checks the
 * lease token on the row again and proves the txid, and commits (the lease passed meanwhile →
 * rollback, nothing recorded). The partner's writes through `transaction`
 * therefore commit together with the handled status: exactly once per status change, even when a
 * process is killed mid-way (PostgreSQL rolls both back, and the change is handed over again).
 * `onChange` throws → rollback, the change is handed over again later. `transaction` refuses
 * `BEGIN`/`COMMIT`/`ROLLBACK`/`release()` and every statement once `onChange` resolved
 * ({@link PostgresTransactionError}, `reason: 'misuse'`/`'ended'`); a lost session fails the turn
 * with a `PostgresStoreError` and records nothing. The record's row is not locked while `onChange`
 * runs, so a webhook's `nudge` of that record is stored at once and the heartbeat keeps the lease.
 *
 * **One clock.** Every lease and due time is PostgreSQL's (`statement_timestamp()` inside each
 * statement, milliseconds since the epoch), never a tracker's: a wall-clock step on one host, or
 * hosts whose clocks disagree, neither ends a live lease early nor stops the schedule; `claimDue`
 * hands back that clock as `claimedAt`. `reclaim(owner)` ends a restarted process's own live
 * leases through the partial `lease_owner` index.
 *
 * The store's transactions run at READ COMMITTED whatever the server's
 * `default_transaction_isolation`; a statement outside them that fails with a serialization
 * failure or a deadlock (40001, 40P01) is retried a few times within `statementTimeoutMs`.
 *
 * External ids of any characters are accepted (keyed as the event stores key event ids).
 * Every database failure rejects with {@link PostgresStoreError}. Requires PostgreSQL 11 or later.
 *
 * @example
 * import pg from 'pg';
 * import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
 * import { createStatusTracker } from 'checkout-partner-sdk/tracker';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000, keepAlive: true });
 * // pg requires it: an idle client whose session ends (a restart, a failover) is reported here, else the process crashes
 * pool.on('error', (error) => console.warn('idle PostgreSQL client lost', error.message));
 * const store = new PostgresStatusStore({ pool, transactional: true });
 * await store.ensureSchema();
 * const tracker = createStatusTracker({
 *   client, store,
 *   onChange: async ({ externalId, status, transaction }) => {
 *     await transaction.query('INSERT INTO fulfilments (order_id, status) VALUES ($1, $2)', [externalId, status]);
 *   },
 * });
 */
export class PostgresStatusStore<
  Pool extends PostgresPoolLike = PostgresPoolLike,
  Transactional extends boolean = false,
> implements StatusStore {
  /** The quoted table name in use, e.g. `"checkout_status_records"`. */
  readonly table: string;
  /** Seconds an ended watch's handled status is kept. */
  readonly retentionSeconds: number;
  /** Whether `onChange` runs inside the store's transaction. */
  readonly transactional: Transactional;
  /** The SQL `ensureSchema()` runs: put it in your migrations to create the table yourself. */
  readonly schemaSql: string;
  /**
   * Present in transactional mode only (`undefined` otherwise): the tracker records each change
   * through it. See `TransactionalStatusStore.transact` (`checkout-partner-sdk/tracker`).
   */
  readonly transact: Transactional extends true ? PostgresStatusTransact<PostgresTransaction<Pool>> : undefined;
  readonly #driver: Driver;
  readonly #sql: StatusStatements;
  readonly #statementTimeoutMs: number;
  readonly #transactionTimeoutMs: number;
  #nextPurgeAt = 0;
  /** Each claimed record's found key as its claim returned it: `rememberKey` of the same key sends nothing. */
  readonly #claimedKeys = new Map<string, string>();
  /** No event noted before this (monotonic): `nudge` writes when the last event came at most once a second. */
  #nextEventNoteAt = 0;
  /** Reschedules that arrive together, sent in one statement. */
  readonly #turnEnds = new TurnEnds(
    async (values) => (await this.#run('reschedule', this.#sql.endTurn, values)).length === 1,
    async (pending) => {
      // endTurns takes a column per value: kind, key, token, next, delay, failures, priority, keep the nudge, missed
      // (booleans as 't'/'f': postgres.js would send an array of booleans as one boolean)
      const columns = [0, 1, 2, 5, 6, 7, 8, 9, 11].map((at) =>
        pending.map((values) => (typeof values[at] === 'boolean' ? (values[at] ? 't' : 'f') : values[at])),
      );
      const rows = await this.#run('reschedule', this.#sql.endTurns, columns);
      return new Set(rows.map((row) => recordId(row['kind'], row['external_id'])));
    },
  );

  constructor(options: PostgresStatusStoreOptions<Pool, Transactional>) {
    checkOptions('PostgresStatusStore', options, OPTIONS);
    this.#driver = driverOf(options.pool, 'PostgresStatusStore');
    const table = tableName(options.table, DEFAULT_STATUS_TABLE);
    this.table = table.quoted;
    this.#sql = statusStatementsFor(table);
    this.schemaSql = this.#sql.schema.join('\n');
    this.retentionSeconds = wholeNumber('retentionSeconds', options.retentionSeconds, DEFAULT_RETENTION_SECONDS);
    this.#statementTimeoutMs = wholeNumber('statementTimeoutMs', options.statementTimeoutMs, DEFAULT_STATEMENT_TIMEOUT_MS);
    this.#transactionTimeoutMs = wholeNumber('transactionTimeoutMs', options.transactionTimeoutMs, DEFAULT_TRANSACTION_TIMEOUT_MS);
    const transactional = options.transactional ?? false;
    if (typeof transactional !== 'boolean') {
      throw new TypeError(`transactional must be true or false, got ${typeName(transactional)}`);
    }
    if (transactional && this.#driver.pgPool === undefined) {
      throw new PostgresTransactionError(
        'PostgresStatusStore: transactional: true needs a pg Pool. postgres.js 3.4 cannot be made safe there: when PostgreSQL ends a ' +
          "session inside sql.begin, it sends the dead transaction's later statements on a new connection that may run another " +
          'transaction (porsager/postgres#1155). Use pg for transactional mode; postgres.js works in plain mode (transactional: false)',
        { reason: 'unsupported-driver' },
      );
    }
    this.transactional = transactional as Transactional;
    const transact: PostgresStatusTransact<unknown> = (lease, status, turn, work, transactOptions) =>
      this.#transact(lease, status, turn, work, transactOptions?.signal);
    this.transact = (transactional ? transact : undefined) as typeof this.transact;
  }

  /**
   * Checks the shape the store depends on (columns and types, the primary key, deterministic
   * collations, the `due_at`, `ended_at`, `lease_owner` and `owed_at` indexes) and the role's rights
   * on the table; creates only what is missing (`CREATE … IF NOT EXISTS`, serialised by an
   * advisory lock so trackers starting together do not race; a table made by 1.0.0 gets its
   * `owed_at` column, `ALTER TABLE … ADD COLUMN IF NOT EXISTS`). A table your migrations made from
   * `schemaSql` thus needs no CREATE right: SELECT, INSERT, UPDATE and DELETE are enough. Safe to
   * call on every start.
   *
   * @throws {PostgresStoreError} (operation `'schema'`) when PostgreSQL refuses (the message names
   *   the missing right: CREATE on the schema, the table's ownership, or a table right), or the
   *   table exists with another shape (the message names what is wrong), or a CHECK on `kind` (as
   *   1.0.0 made the table) refuses a kind of this version and the role does not own the table to
   *   drop it (the message holds the `ALTER TABLE … DROP CONSTRAINT` to run as the owner).
   */
  async ensureSchema(): Promise<void> {
    await ensureTable(this.#driver, this.#sql, this.table, this.#statementTimeoutMs);
  }

  /**
   * Deletes at most `maxRows` records whose watch ended more than `retentionSeconds` ago, skipping
   * rows anybody holds, and resolves with how many it deleted. The store runs it on its own at most
   * once a minute (from `claimDue`); call it from a job when you want more.
   *
   * @throws {PostgresStoreError} (operation `'purge'`)
   */
  async purgeExpired(maxRows = PURGE_BATCH): Promise<number> {
    wholeNumber('maxRows', maxRows, PURGE_BATCH);
    const rows = await this.#run('purge', this.#sql.purge, [this.retentionSeconds, maxRows]);
    return Number(rows[0]?.['purged'] ?? 0);
  }

  /**
   * Starts watching the record, due at once (idempotent: a record already watched keeps its
   * schedule). With `transaction` (transactional mode), the partner's own open transaction (the
   * `pg` client they ran `BEGIN` on), the watch is written through it: it commits
   * with the partner's own write (an order row and its watch) or rolls back with it. The store
   * never ends or bounds that transaction; the partner does.
   *
   * @throws {TypeError} when `transaction` is not a `pg` client (a pool is refused: it would write
   *   outside the transaction), or the store is not transactional.
   * @throws {PostgresStoreError} (operation `'watch'`)
   */
  async watch(
    kind: StatusKind,
    externalId: string,
    options?: { transaction?: (Transactional extends true ? PostgresTransaction<Pool> : never) | undefined },
  ): Promise<void> {
    const key = await keyOf(kind, externalId);
    const values = [kind, key, JSON.stringify(externalId)];
    const transaction = watchOptions(options);
    if (transaction !== undefined && !this.transactional) {
      throw new TypeError('watch: { transaction } needs a transactional store (new PostgresStatusStore({ pool, transactional: true }))');
    }
    if (transaction === undefined) {
      await this.#run('watch', this.#sql.watch, values);
      return;
    }
    try {
      await transaction(this.#sql.watch, values);
    } catch (error) {
      throw storeError('watch', error);
    }
  }

  async unwatch(kind: StatusKind, externalId: string): Promise<void> {
    await this.#run('unwatch', this.#sql.unwatch, [kind, await keyOf(kind, externalId)]);
  }

  async nudge(kind: StatusKind, externalId: string, nudge: { event?: WebhookEvent | undefined } = {}): Promise<void> {
    if (nudge === null || typeof nudge !== 'object') throw new TypeError(`nudge must be an object, got ${typeName(nudge)}`);
    const key = await keyOf(kind, externalId);
    // a bounded projection (MAX_TRACKED_EVENT_BYTES), whoever calls: a row never holds a whole payload;
    // JSON escapes a NUL and lone surrogates, which PostgreSQL text cannot hold
    const event = nudge.event === undefined ? null : JSON.stringify(projectEvent(nudge.event));
    await this.#run('nudge', this.#sql.nudge, [kind, key, JSON.stringify(externalId), event, NUDGE_PRIORITY_MS]);
    if (event !== null) await this.#noteEvent();
  }

  /**
   * When a nudge with an event last reached the table (any process), and how long ago, on
   * PostgreSQL's clock (to the second: `nudge` notes it at most once a second per store);
   * `undefined` before the first.
   *
   * @throws {PostgresStoreError} (operation `'count'`)
   */
  async lastEvent(): Promise<LastEvent | undefined> {
    const row = (await this.#run('count', this.#sql.lastEvent, []))[0];
    if (row === undefined) return undefined;
    const at = Number(row['at']);
    const age = Number(row['age']);
    if (!Number.isSafeInteger(at) || !Number.isFinite(age))
      throw new PostgresStoreError('PostgreSQL count failed: unexpected reply from the status table', { operation: 'count' });
    return { at, ageMs: Math.max(0, age) };
  }

  /** Notes that an event came, at most once a second (pacing on a monotonic clock); best effort: a failure only delays it. */
  async #noteEvent(): Promise<void> {
    const now = performance.now();
    if (now < this.#nextEventNoteAt) return;
    this.#nextEventNoteAt = now + 1_000;
    try {
      await this.#run('nudge', this.#sql.noteEvent, []);
    } catch {
      // the nudge itself is stored; the next event notes it again (a tracker that sees no event
      // reads announced changes at the fast pace: costlier, never later)
      this.#nextEventNoteAt = 0;
    }
  }

  async claimDue(request: ClaimDueRequest): Promise<ClaimedStatusRecord[]> {
    if (request === null || typeof request !== 'object')
      throw new TypeError(`claimDue needs { limit, leaseMs, owner }, got ${typeName(request)}`);
    const { limit, leaseMs, owner } = request;
    wholeNumber('limit', limit, 1);
    wholeNumber('leaseMs', leaseMs, 1);
    checkOwner(owner);
    this.#purgeNow();
    const base = `${owner}:${globalThis.crypto.randomUUID()}`;
    const rows = await this.#run('claim', this.#sql.claimDue, [limit, ms(leaseMs), owner, base]);
    // RETURNING has no order: n is each row's place in due order
    rows.sort((a, b) => Number(a['n']) - Number(b['n']));
    return rows.map((row) => {
      const state = stateOf(row);
      const token = row['lease_token'];
      if (typeof token !== 'string')
        throw new PostgresStoreError('PostgreSQL claim failed: a claimed row came back without its lease', { operation: 'claim' });
      // the time it was due before the claim moved it to the lease end (the tracker's lag metric)
      const dueAt = Number(row['was_due_at']);
      const claimedAt = Number(row['claimed_at']);
      this.#noteClaimedKey(state.kind, state.externalId, row['found_key']);
      return {
        ...state,
        lease: { kind: state.kind, externalId: state.externalId, owner, token },
        claimedAt,
        ...(Number.isFinite(dueAt) ? { dueAt } : {}),
      };
    });
  }

  /**
   * Records watched now (both kinds), for the tracker's `checkout.tracker.watched` gauge: a count
   * over the partial `due_at` index, which holds exactly the watched records.
   *
   * @throws {PostgresStoreError} (operation `'count'`)
   */
  async countWatched(): Promise<number> {
    const watched = Number((await this.#run('count', this.#sql.countWatched, []))[0]?.['watched']);
    if (!Number.isSafeInteger(watched))
      throw new PostgresStoreError('PostgreSQL count failed: unexpected reply from the status table', { operation: 'count' });
    return watched;
  }

  /**
   * The watched records whose read is owed (not read successfully when their schedule said) and
   * how late the most overdue one is, on PostgreSQL's clock, for `tracker.health()` and the
   * tracker's overdue gauges: a count over the partial `owed_at` index, reading the overdue rows only.
   *
   * @throws {PostgresStoreError} (operation `'count'`)
   */
  async overdue(): Promise<OverdueRecords> {
    const row = (await this.#run('count', this.#sql.overdue, []))[0];
    const count = Number(row?.['overdue']);
    const oldestMs = Number(row?.['oldest']);
    if (!Number.isSafeInteger(count) || !Number.isFinite(oldestMs))
      throw new PostgresStoreError('PostgreSQL count failed: unexpected reply from the status table', { operation: 'count' });
    return { count, oldestMs: Math.max(0, oldestMs) };
  }

  async extend(lease: StatusLease, extension: { leaseMs: number }): Promise<boolean> {
    const key = await leaseKey(lease);
    const leaseMs = wholeNumber('leaseMs', extension?.leaseMs, 1);
    const rows = await this.#run('extend', this.#sql.extend, [lease.kind, key, lease.token, ms(leaseMs)]);
    return rows.length === 1;
  }

  async commit(lease: StatusLease, status: string | null, turn: StatusTurn): Promise<boolean> {
    const key = await leaseKey(lease);
    return (await this.#run('commit', this.#sql.endTurn, endTurnValues(lease, key, status, turn, null))).length === 1;
  }

  async reschedule(lease: StatusLease, turn: StatusTurn): Promise<boolean> {
    const key = await leaseKey(lease);
    return this.#turnEnds.add(endTurnValues(lease, key, undefined, turn, null));
  }

  async release(lease: StatusLease): Promise<void> {
    const key = await leaseKey(lease);
    await this.#run('release', this.#sql.release, [lease.kind, key, lease.token]);
  }

  /**
   * Ends every lease `owner` holds, each watched record due at once (its nudge, event and failures
   * kept), and resolves with how many it ended: a tracker restarted with the same `owner` takes
   * back what its previous life held instead of waiting a whole lease. Found through the partial
   * `lease_owner` index, never by scanning the table.
   *
   * @throws {PostgresStoreError} (operation `'reclaim'`)
   */
  async reclaim(owner: string): Promise<number> {
    checkOwner(owner);
    const rows = await this.#run('reclaim', this.#sql.reclaim, [owner]);
    return Number(rows[0]?.['reclaimed'] ?? 0);
  }

  async get(kind: StatusKind, externalId: string): Promise<StatusRecordState | undefined> {
    const rows = await this.#run('get', this.#sql.get, [kind, await keyOf(kind, externalId)]);
    return rows[0] === undefined ? undefined : stateOf(rows[0]);
  }

  async rememberKey(kind: StatusKind, externalId: string, key: string): Promise<void> {
    checkFoundKey(key);
    const found = await eventRowId(key);
    // the row's key as this store's claim of it returned it: a read that shows it again writes nothing
    if (this.#claimedKeys.get(claimedKeyOf(kind, externalId)) === found) return;
    await this.#run('rememberKey', this.#sql.rememberKey, [kind, await keyOf(kind, externalId), found]);
  }

  async findByKey(kind: StatusKind, key: string): Promise<string | undefined> {
    checkKind(kind);
    checkFoundKey(key);
    const rows = await this.#run('findByKey', this.#sql.findByKey, [kind, await eventRowId(key)]);
    const idJson = rows[0]?.['external_id_json'];
    const externalId: unknown = typeof idJson === 'string' ? JSON.parse(idJson) : undefined;
    return typeof externalId === 'string' ? externalId : undefined;
  }

  async #transact(
    lease: StatusLease,
    status: string | null,
    turn: StatusTurn,
    work: (transaction: unknown) => Promise<void>,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const key = await leaseKey(lease);
    const pool = this.#driver.pgPool;
    if (pool === undefined) throw new PostgresTransactionError('transact needs a pg Pool', { reason: 'unsupported-driver' }); // refused in the constructor
    try {
      return await runProvenTransaction(
        pool,
        leaseBounds(this.#transactionTimeoutMs),
        async (transaction) => {
          await transaction.query(this.#sql.recordLock, [lease.kind, key]);
          // a statement after the lock: its snapshot sees what a transaction that held it committed
          const rows = await transaction.query(this.#sql.held, [lease.kind, key, lease.token]);
          if (rows[0]?.['held'] !== true) throw new LeaseLost();
          await runPartnerWork(transaction, work);
          // one statement that checks the lease token on the row (locking it until COMMIT) and proves
          // the txid: the status is recorded only in this very transaction, and only while the lease holds
          const ended = await transaction.query(this.#sql.endTurn, endTurnValues(lease, key, status, turn, transaction.txid));
          if (ended.length === 1) return true;
          await transaction.prove(); // throws when the session left the transaction (a COMMIT or ROLLBACK got through)
          throw new LeaseLost(); // the lease passed while onChange ran (its heartbeat failed): roll its writes back
        },
        {},
        signal,
      );
    } catch (error) {
      if (error instanceof LeaseLost) return false;
      throw transactFailure(error);
    }
  }

  async #run(operation: PostgresStoreOperation, text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    try {
      return await this.#driver.query(text, values, this.#statementTimeoutMs);
    } catch (error) {
      throw storeError(operation, error);
    }
  }

  /** Keeps a claimed row's found key (the latest claim's, bounded: a forgotten one is written again). */
  #noteClaimedKey(kind: StatusKind, externalId: string, found: unknown): void {
    const record = claimedKeyOf(kind, externalId);
    this.#claimedKeys.delete(record);
    if (typeof found !== 'string') return;
    this.#claimedKeys.set(record, found);
    if (this.#claimedKeys.size > CLAIMED_KEYS_LIMIT) this.#claimedKeys.delete(this.#claimedKeys.keys().next().value!);
  }

  /** Starts one purge batch in the background when the last one began a minute ago or more. */
  #purgeNow(): void {
    const now = performance.now(); // pacing only, on a monotonic clock: a wall-clock step neither stops nor floods it
    if (now < this.#nextPurgeAt) return;
    this.#nextPurgeAt = now + PURGE_EVERY_MS;
    // best effort: a failed purge is retried a minute later, and never fails a claim
    this.purgeExpired().catch(() => undefined);
  }
}

/** The refusal of a `watch` transaction that is not an open pg client. */
function notATransaction(transaction: unknown): TypeError {
  return new TypeError(
    'watch: transaction must be your open transaction, the pg client you ran BEGIN on (from pool.connect()); a pool would write the watch outside it. ' +
      `Got ${typeName(transaction)}`,
  );
}

/**
 * The `transaction` of a watch as a way to run one statement on it, or undefined without one: a
 * `pg` client. A pool is refused: each of its statements would run on whichever connection is
 * free, outside the partner's transaction.
 */
function watchOptions(options: unknown): ((text: string, values: unknown[]) => Promise<unknown>) | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== 'object') throw new TypeError(`watch options must be an object, got ${typeName(options)}`);
  for (const key of Object.keys(options)) {
    if (key !== 'transaction') throw new TypeError(`watch: unknown option ${quote(key)}`);
  }
  const transaction = (options as { transaction?: unknown }).transaction;
  if (transaction === undefined) return undefined;
  if (transaction === null || typeof transaction !== 'object') throw notATransaction(transaction);
  const candidate = transaction as Partial<Record<'query' | 'totalCount' | 'idleCount', unknown>>;
  if (typeof candidate.query !== 'function' || 'totalCount' in transaction || 'idleCount' in transaction) {
    throw notATransaction(transaction);
  }
  const query = candidate.query as (text: string, values: unknown[]) => Promise<unknown>;
  return async (text, values) => query.call(transaction, text, values);
}

/** A record's key column: its externalId as the event stores key ids (hashed when text cannot hold it). */
async function keyOf(kind: StatusKind, externalId: string): Promise<string> {
  checkKind(kind);
  checkExternalId(externalId);
  return eventRowId(externalId);
}

async function leaseKey(lease: StatusLease): Promise<string> {
  if (lease === null || typeof lease !== 'object' || typeof lease.token !== 'string') {
    throw new TypeError(`lease must be the lease claimDue returned, got ${typeName(lease)}`);
  }
  return keyOf(lease.kind, lease.externalId);
}

/** The parameters of the `endTurn` statement; `status` undefined: a reschedule (nothing handled). */
function endTurnValues(
  lease: StatusLease,
  key: string,
  status: string | null | undefined,
  turn: StatusTurn,
  txid: string | null,
): unknown[] {
  const next = 'delayMs' in turn.next ? 'delay' : turn.next.end;
  const delay = 'delayMs' in turn.next ? ms(turn.next.delayMs) : 0;
  return [
    lease.kind,
    key,
    lease.token,
    status !== undefined,
    status ?? null,
    next,
    delay,
    turn.failures,
    NUDGE_PRIORITY_MS,
    turn.keepNudge === true,
    txid,
    turn.missed === true,
  ];
}

function ms(value: number): number {
  return Math.ceil(value);
}

/** The most claimed records whose found key the store keeps. */
const CLAIMED_KEYS_LIMIT = 10_000;

function claimedKeyOf(kind: StatusKind, externalId: string): string {
  return `${kind}\u0000${externalId}`;
}

/** A row the store's statements return, as a record's state. */
function stateOf(row: Record<string, unknown>): StatusRecordState {
  const kind = row['kind'];
  const idJson = row['external_id_json'];
  const externalId: unknown = typeof idJson === 'string' ? JSON.parse(idJson) : undefined;
  if (!isStatusKind(kind) || typeof externalId !== 'string') {
    throw new PostgresStoreError('PostgreSQL get failed: a row of the status table is not one this store wrote', { operation: 'get' });
  }
  const state: StatusRecordState = {
    kind,
    externalId,
    watching: row['watching'] === true,
    watchedAt: Number(row['watched_at']),
    failures: Number(row['failures'] ?? 0),
  };
  if (row['handled_at'] !== null && row['handled_at'] !== undefined) {
    const handled = row['handled_status'];
    state.handled = { status: typeof handled === 'string' ? handled : null, at: Number(row['handled_at']) };
  }
  if (row['nudged_at'] !== null && row['nudged_at'] !== undefined) state.nudgedAt = Number(row['nudged_at']);
  const event = row['event'];
  if (typeof event === 'string') {
    const parsed: unknown = JSON.parse(event);
    if (parsed !== null && typeof parsed === 'object' && typeof (parsed as { eventId?: unknown }).eventId === 'string') {
      state.event = parsed as WebhookEvent;
    }
  }
  return state;
}
