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
  /** A `pg` Pool or a postgres.js `sql` (plain mode only), which the store never configures: give it a connection timeout. */
  pool: Pool;
  /** The table, `name` or `schema.name`, used quoted; trackers that share it share their records. @default 'checkout_status_records' */
  table?: string | undefined;
  /**
   * Run `onChange` in the store's transaction, handed to it as `change.transaction`: writes through it commit with the handled
   * status, exactly once per change. `pg` only. @default false
   */
  transactional?: (Pool extends PostgresJsSqlLike ? false : Transactional) | undefined;
  /**
   * The longest an `onChange` transaction lasts, in milliseconds, ended by PostgreSQL and then by the store (the change is handed
   * over again); at least the tracker's `maxHandlingMs`. @default 60_000 (the tracker's default `maxHandlingMs`)
   */
  transactionTimeoutMs?: number | undefined;
  /** How long an ended watch's handled status is kept, in seconds, for replayed events; then purged. @default 2_592_000 (30 days) */
  retentionSeconds?: number | undefined;
  /**
   * How long the store waits for a statement outside an `onChange` transaction (retries included), in milliseconds, before it
   * rejects with `PostgresStoreError`; with `pg` the connection is then destroyed. @default 10_000
   */
  statementTimeoutMs?: number | undefined;
}

/** Runs one status change inside the store's transaction; see `TransactionalStatusStore.transact`. @inline */
export type PostgresStatusTransact<Transaction> = (
  lease: StatusLease,
  status: string | null,
  turn: StatusTurn,
  work: (transaction: Transaction) => Promise<void>,
  options?: TransactOptions,
) => Promise<boolean>;

const OPTIONS = ['pool', 'table', 'transactional', 'transactionTimeoutMs', 'retentionSeconds', 'statementTimeoutMs'];
const DEFAULT_RETENTION_SECONDS = 30 * 24 * 60 * 60;
// the tracker's default maxHandlingMs, not imported: this entry does not load the tracker
const DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
const PURGE_BATCH = 1_000;
const PURGE_EVERY_MS = 60_000;

/** Thrown out of the transaction callback so that it rolls back. */
class LeaseLost {}

/**
 * A {@link StatusStore} in your PostgreSQL (11+): a row per record, due rows claimed through an index on `due_at`, each lease
 * check one statement, every time PostgreSQL's. Transactional mode (`pg` only): `onChange` runs in a proven transaction that
 * holds the record's advisory lock (not its row, so nudges and heartbeats go on) and commits its writes with the handled status,
 * exactly once per change. Failures reject with {@link PostgresStoreError}.
 *
 * @example
 * const store = new PostgresStatusStore({ pool, transactional: true });
 * await store.ensureSchema();
 * const tracker = createStatusTracker({ client, store, onChange: async ({ externalId, status, transaction }) => {
 *   await transaction.query('INSERT INTO fulfilments (order_id, status) VALUES ($1, $2)', [externalId, status]);
 * } });
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
  /** In transactional mode only: the tracker records each change through it (`TransactionalStatusStore.transact`). */
  readonly transact: Transactional extends true ? PostgresStatusTransact<PostgresTransaction<Pool>> : undefined;
  readonly #driver: Driver;
  readonly #sql: StatusStatements;
  readonly #statementTimeoutMs: number;
  readonly #transactionTimeoutMs: number;
  #nextPurgeAt = 0;
  /** Each claimed record's found key: `rememberKey` of the same key sends nothing. */
  readonly #claimedKeys = new Map<string, string>();
  #nextEventNoteAt = 0;
  readonly #turnEnds = new TurnEnds(
    async (values) => (await this.#run('reschedule', this.#sql.endTurn, values)).length === 1,
    async (pending) => {
      // a column per value of endTurns; booleans as 't'/'f', since postgres.js sends an array of booleans as one boolean
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
   * Checks the table and the role's rights, creating or migrating only what is missing: safe on every start, and a table made from
   * `schemaSql` needs no CREATE right. @throws {PostgresStoreError} (`'schema'`) naming the missing right, what is wrong with the
   * table, or, for a 1.0.0 table's CHECK on `kind` that refuses a kind and that only its owner may drop, the statement to run.
   */
  async ensureSchema(): Promise<void> {
    await ensureTable(this.#driver, this.#sql, this.table, this.#statementTimeoutMs);
  }

  /** Deletes at most `maxRows` records past `retentionSeconds`, skipping held ones; resolves how many. `claimDue` runs it once a minute. */
  async purgeExpired(maxRows = PURGE_BATCH): Promise<number> {
    wholeNumber('maxRows', maxRows, PURGE_BATCH);
    const rows = await this.#run('purge', this.#sql.purge, [this.retentionSeconds, maxRows]);
    return Number(rows[0]?.['purged'] ?? 0);
  }

  /**
   * As {@link StatusStore.watch}; with `transaction` (transactional mode: the `pg` client you ran `BEGIN` on, never a pool) the watch
   * commits or rolls back with your own write. The store never ends or bounds that transaction.
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
    // bounded whoever calls; JSON escapes a NUL and lone surrogates, which text cannot hold
    const event = nudge.event === undefined ? null : JSON.stringify(projectEvent(nudge.event));
    await this.#run('nudge', this.#sql.nudge, [kind, key, JSON.stringify(externalId), event, NUDGE_PRIORITY_MS]);
    if (event !== null) await this.#noteEvent();
  }

  /** As {@link StatusStore.lastEvent}, to the second: `nudge` notes an event at most once a second per store. */
  async lastEvent(): Promise<LastEvent | undefined> {
    const row = (await this.#run('count', this.#sql.lastEvent, []))[0];
    if (row === undefined) return undefined;
    const at = Number(row['at']);
    const age = Number(row['age']);
    if (!Number.isSafeInteger(at) || !Number.isFinite(age))
      throw new PostgresStoreError('PostgreSQL count failed: unexpected reply from the status table', { operation: 'count' });
    return { at, ageMs: Math.max(0, age) };
  }

  /** Best effort: a failure only delays the note. */
  async #noteEvent(): Promise<void> {
    const now = performance.now();
    if (now < this.#nextEventNoteAt) return;
    this.#nextEventNoteAt = now + 1_000;
    try {
      await this.#run('nudge', this.#sql.noteEvent, []);
    } catch {
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
    rows.sort((a, b) => Number(a['n']) - Number(b['n'])); // RETURNING has no order
    return rows.map((row) => {
      const state = stateOf(row);
      const token = row['lease_token'];
      if (typeof token !== 'string')
        throw new PostgresStoreError('PostgreSQL claim failed: a claimed row came back without its lease', { operation: 'claim' });
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

  async countWatched(): Promise<number> {
    const watched = Number((await this.#run('count', this.#sql.countWatched, []))[0]?.['watched']);
    if (!Number.isSafeInteger(watched))
      throw new PostgresStoreError('PostgreSQL count failed: unexpected reply from the status table', { operation: 'count' });
    return watched;
  }

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
          // a statement after the lock, whose snapshot sees what the lock's last holder committed
          const rows = await transaction.query(this.#sql.held, [lease.kind, key, lease.token]);
          if (rows[0]?.['held'] !== true) throw new LeaseLost();
          await runPartnerWork(transaction, work);
          // checks the lease on the row again and proves the txid: recorded only in this transaction, while leased
          const ended = await transaction.query(this.#sql.endTurn, endTurnValues(lease, key, status, turn, transaction.txid));
          if (ended.length === 1) return true;
          await transaction.prove(); // throws when a COMMIT or ROLLBACK got through
          throw new LeaseLost(); // the lease passed while onChange ran: roll its writes back
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

  /** Bounded: a forgotten key is only written again. */
  #noteClaimedKey(kind: StatusKind, externalId: string, found: unknown): void {
    const record = claimedKeyOf(kind, externalId);
    this.#claimedKeys.delete(record);
    if (typeof found !== 'string') return;
    this.#claimedKeys.set(record, found);
    if (this.#claimedKeys.size > CLAIMED_KEYS_LIMIT) this.#claimedKeys.delete(this.#claimedKeys.keys().next().value!);
  }

  #purgeNow(): void {
    const now = performance.now(); // monotonic: a wall-clock step neither stops nor floods the purges
    if (now < this.#nextPurgeAt) return;
    this.#nextPurgeAt = now + PURGE_EVERY_MS;
    // best effort: a failed purge is retried a minute later, and never fails a claim
    this.purgeExpired().catch(() => undefined);
  }
}

function notATransaction(transaction: unknown): TypeError {
  return new TypeError(
    'watch: transaction must be your open transaction, the pg client you ran BEGIN on (from pool.connect()); a pool would write the watch outside it. ' +
      `Got ${typeName(transaction)}`,
  );
}

/** A pool is refused: its statements would run on whichever connection is free, outside the partner's transaction. */
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

/** `status` undefined: a reschedule. */
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

const CLAIMED_KEYS_LIMIT = 10_000;

function claimedKeyOf(kind: StatusKind, externalId: string): string {
  return `${kind}\u0000${externalId}`;
}

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
