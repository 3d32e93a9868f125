import { checkEventId, checkOptions, MAX_TIMER_MS } from '../internal/arguments.js';
import { typeName } from '../internal/type-name.js';
import { eventRowId } from '../stores/event-key.js';
import type { ClaimedLease, ClaimOptions, EventStore, TransactionalEventStore, TransactResult } from '../stores/event-store.js';
import { claimOwner, ownerLeaseId } from '../stores/claim-owner.js';
import { driverOf, type Driver, type PostgresJsSqlLike, type PostgresPoolLike, type PostgresTransaction } from './driver.js';
import { PostgresStoreError, PostgresTransactionError, storeError } from './errors.js';
import { leaseBounds, runPartnerWork, runProvenTransaction, transactFailure } from './transaction.js';
import { ensureTable } from './schema.js';
import { statementsFor, tableName, textLiteral, type TableStatements } from './sql.js';
import { quote } from '../internal/quote.js';

/** Options of {@link PostgresEventStore}. */
export interface PostgresEventStoreOptions<Pool extends PostgresPoolLike = PostgresPoolLike, Transactional extends boolean = boolean> {
  /** A `pg` Pool or a postgres.js `sql` (plain mode only), which the store never configures: give it a connection timeout. */
  pool: Pool;
  /** The table, `name` or `schema.name`, used quoted; stores that share it share their events. @default 'checkout_webhook_events' */
  table?: string | undefined;
  /**
   * Run the confirm reads and `onEvent` in the claim's transaction, handed to `onEvent` as `transaction`: writes through it commit
   * with the done mark, exactly once. `pg` only. @default false
   */
  transactional?: (Pool extends PostgresJsSqlLike ? false : Transactional) | undefined;
  /** How long an event is remembered, in seconds from when it was done (or first seen), then purged. @default 604_800 (7 days) */
  ttlSeconds?: number | undefined;
  /**
   * How long the store waits for a statement outside a delivery's transaction (retries included), in milliseconds; with `pg` the
   * connection is then destroyed. A transaction is bounded by the handler's `leaseMs` instead. @default 10_000
   */
  statementTimeoutMs?: number | undefined;
}

/** Runs one event inside the store's transaction; see {@link TransactionalEventStore.transact}. */
export type PostgresTransact<Transaction> = TransactionalEventStore<Transaction>['transact'];

const DEFAULT_TTL_SECONDS = 7 * 24 * 60 * 60;
const PURGE_BATCH = 1_000;
const PURGE_EVERY_MS = 60_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Thrown out of the transaction callback so that it rolls back. */
class Settled {
  constructor(readonly result: 'in-flight' | 'done') {}
}

/**
 * An {@link EventStore} in your PostgreSQL (11+). Plain mode: a claim is a row with a lease, taken in one atomic upsert and settled
 * only by its owner, as `RedisEventStore`'s. Transactional mode (`pg` only): a delivery locks its row, runs `onEvent` with
 * `transaction` and commits its writes with the done mark, exactly once; the transaction is proven by its txid, bounded by `leaseMs`
 * on both sides, and refuses `COMMIT`, `ROLLBACK` and `release()` ({@link PostgresTransactionError}). Failures reject with
 * {@link PostgresStoreError}.
 *
 * @example
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000, keepAlive: true });
 * pool.on('error', (error) => console.warn('idle PostgreSQL client lost', error.message)); // else pg crashes the process
 * const store = new PostgresEventStore({ pool, transactional: true });
 * await store.ensureSchema();
 * const handler = createWebhookHandler({ secret, client, store, onEvent: async ({ event, transaction }) => {
 *   await transaction.query('INSERT INTO payments (event_id) VALUES ($1)', [event.eventId]);
 * } });
 */
export class PostgresEventStore<
  Pool extends PostgresPoolLike = PostgresPoolLike,
  Transactional extends boolean = false,
> implements EventStore {
  /** The quoted table name in use, e.g. `"checkout_webhook_events"`. */
  readonly table: string;
  /** Seconds an event is remembered. */
  readonly ttlSeconds: number;
  /** Whether `onEvent` runs inside the claim's transaction. */
  readonly transactional: Transactional;
  /** The SQL `ensureSchema()` runs: put it in your migrations to create the table yourself. */
  readonly schemaSql: string;
  /** In transactional mode only: the webhook handler runs each delivery through it ({@link TransactionalEventStore.transact}). */
  readonly transact: Transactional extends true ? PostgresTransact<PostgresTransaction<Pool>> : undefined;
  readonly #driver: Driver;
  readonly #sql: TableStatements;
  readonly #statementTimeoutMs: number;
  #nextPurgeAt = 0;

  constructor(options: PostgresEventStoreOptions<Pool, Transactional>) {
    checkOptions('PostgresEventStore', options, ['pool', 'table', 'transactional', 'ttlSeconds', 'statementTimeoutMs']);
    this.#driver = driverOf(options.pool, 'PostgresEventStore');
    const table = tableName(options.table);
    this.table = table.quoted;
    this.#sql = statementsFor(table);
    this.schemaSql = this.#sql.schema.join('\n');
    const ttl = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
    if (typeof ttl !== 'number' || !Number.isFinite(ttl) || !(ttl >= 1)) {
      throw new TypeError(`ttlSeconds must be a number of seconds of at least 1, got ${quote(ttl)}`);
    }
    this.ttlSeconds = ttl;
    const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    if (typeof statementTimeoutMs !== 'number' || !Number.isFinite(statementTimeoutMs) || !(statementTimeoutMs >= 1)) {
      throw new TypeError(`statementTimeoutMs must be a number of milliseconds of at least 1, got ${quote(statementTimeoutMs)}`);
    }
    if (statementTimeoutMs > MAX_TIMER_MS) {
      throw new TypeError(
        `statementTimeoutMs must be at most ${MAX_TIMER_MS} milliseconds (the longest a timer can wait), got ${statementTimeoutMs}`,
      );
    }
    this.#statementTimeoutMs = statementTimeoutMs;
    const transactional = options.transactional ?? false;
    if (typeof transactional !== 'boolean') {
      throw new TypeError(`transactional must be true or false, got ${typeName(transactional)}`);
    }
    if (transactional && this.#driver.pgPool === undefined) {
      throw new PostgresTransactionError(
        'PostgresEventStore: transactional: true needs a pg Pool. postgres.js 3.4 cannot be made safe there: when PostgreSQL ends a ' +
          "session inside sql.begin, it sends the dead transaction's later statements on a new connection that may run another " +
          "delivery's transaction (porsager/postgres#1155), and can crash the process from the closed socket (#1208). Use pg for " +
          'transactional mode; postgres.js works in plain mode (transactional: false)',
        { reason: 'unsupported-driver' },
      );
    }
    this.transactional = transactional as Transactional;
    const transact: PostgresTransact<unknown> = (event, leaseMs, work, transactOptions) =>
      this.#transact(event, leaseMs, work, transactOptions?.signal);
    this.transact = (transactional ? transact : undefined) as typeof this.transact;
  }

  /**
   * Checks the table and the role's rights, creating only what is missing: safe on every start, and a table made from `schemaSql`
   * needs no CREATE right. @throws {PostgresStoreError} (`'schema'`) naming the missing right or what is wrong with the table.
   */
  async ensureSchema(): Promise<void> {
    await ensureTable(this.#driver, this.#sql, this.table, this.#statementTimeoutMs);
  }

  /** Deletes at most `maxRows` rows past `ttlSeconds`, skipping held ones; resolves how many. The store runs it once a minute at most. */
  async purgeExpired(maxRows = PURGE_BATCH): Promise<number> {
    if (!Number.isSafeInteger(maxRows) || maxRows < 1) {
      throw new TypeError(`maxRows must be a whole number of at least 1, got ${quote(maxRows)}`);
    }
    try {
      const rows = await this.#driver.query(this.#sql.purge, [this.ttlSeconds, maxRows], this.#statementTimeoutMs);
      return Number(rows[0]?.['purged'] ?? 0);
    } catch (error) {
      throw storeError('purge', error);
    }
  }

  async claim(eventId: string, leaseMs: number, options?: ClaimOptions): Promise<ClaimedLease | 'in-flight' | 'done'> {
    checkEventId(eventId);
    checkLeaseMs(leaseMs);
    const named = claimOwner(options);
    this.#purgeNow();
    const owner = named === undefined ? globalThis.crypto.randomUUID() : await ownerLeaseId(named);
    // a claim answered after its lease is worthless
    const row = await this.#one(
      'claim',
      this.#sql.claim,
      [await eventRowId(eventId), owner, Math.ceil(leaseMs)],
      Math.min(this.#statementTimeoutMs, leaseMs),
    );
    if (row['claimed'] !== true) return row['state'] === 'done' ? 'done' : 'in-flight';
    return { status: 'claimed', lease: owner };
  }

  async complete(eventId: string, lease?: unknown): Promise<void> {
    checkEventId(eventId);
    const owner = leaseOwner(lease);
    const id = await eventRowId(eventId);
    const row = await this.#one('complete', this.#sql.complete, [id, owner]);
    if (row['completed'] === true || row['state'] === 'done') return;
    if (row['state'] === null || row['state'] === undefined) {
      await this.#run('complete', this.#sql.insertDone, [id]);
      return;
    }
    throw new PostgresStoreError(
      "PostgreSQL complete failed: the event was not marked done because this claim's lease lapsed and another worker holds it",
      { operation: 'complete' },
    );
  }

  async release(eventId: string, lease?: unknown): Promise<void> {
    checkEventId(eventId);
    const owner = leaseOwner(lease);
    await this.#run('release', this.#sql.release, [await eventRowId(eventId), owner]);
  }

  async renew(eventId: string, lease: unknown, leaseMs: number): Promise<boolean> {
    checkEventId(eventId);
    const owner = leaseOwner(lease);
    if (owner === null) throw new TypeError("lease must be the lease this store's claim returned, got undefined");
    checkLeaseMs(leaseMs);
    const rows = await this.#run('extend', this.#sql.renew, [await eventRowId(eventId), owner, Math.ceil(leaseMs)]);
    return rows.length > 0;
  }

  async leaseLeftMs(eventId: string): Promise<number | undefined> {
    checkEventId(eventId);
    const row = (await this.#run('get', this.#sql.leaseLeft, [await eventRowId(eventId)]))[0];
    if (row === undefined) return 0;
    const left = Number(row['left_ms']);
    if (left > 0) return left;
    return row['state'] === 'pending' ? undefined : 0;
  }

  async #transact(
    event: { eventId: string; type: string },
    leaseMs: number,
    work: (transaction: unknown) => Promise<void>,
    signal: AbortSignal | undefined,
  ): Promise<TransactResult> {
    checkEventId(event?.eventId);
    this.#purgeNow();
    const id = await eventRowId(event.eventId);
    // only recorded: NUL (which text cannot hold) and lone surrogates become U+FFFD
    const type = event.type.toWellFormed().replaceAll('\u0000', '\ufffd');
    const pool = this.#driver.pgPool;
    if (pool === undefined) throw new PostgresTransactionError('transact needs a pg Pool', { reason: 'unsupported-driver' }); // refused in the constructor
    const sql = this.#sql.transactional;
    const idText = textLiteral(id);
    const typeText = textLiteral(type);
    try {
      return await runProvenTransaction(
        pool,
        leaseBounds(leaseMs),
        async (transaction): Promise<TransactResult> => {
          const [seen, locked] = transaction.opened;
          const row = locked?.[0];
          // not locked: another transaction holds it, or a purge took it since the insert: a 409 has it redelivered
          if (row === undefined) throw new Settled(seen?.[0]?.['state'] === 'done' ? 'done' : 'in-flight');
          if (row['state'] === 'done') throw new Settled('done');
          if (row['leased'] === true) throw new Settled('in-flight'); // a plain-mode claim holds it
          await runPartnerWork(transaction, work);
          return 'handled';
        },
        {
          prelude: sql.insert(idText, typeText),
          opening: sql.claim(idText),
          // the done mark proves the txid itself: COMMIT runs only when it applied in this very transaction
          closing: {
            statement: (txid) => sql.markDone(idText, typeText, txid),
            unapplied:
              "onEvent deleted the event's row through transaction, so it could not be marked done: leave the store's table to the store",
          },
        },
        signal,
      );
    } catch (error) {
      if (error instanceof Settled) return error.result;
      throw transactFailure(error); // a misuse: 500, whose message says what to do instead
    }
  }

  async #run(
    operation: 'claim' | 'complete' | 'release' | 'transact' | 'extend' | 'get',
    text: string,
    values: unknown[],
    timeoutMs = this.#statementTimeoutMs,
  ): Promise<Record<string, unknown>[]> {
    try {
      return await this.#driver.query(text, values, timeoutMs);
    } catch (error) {
      throw storeError(operation, error);
    }
  }

  async #one(operation: 'claim' | 'complete', text: string, values: unknown[], timeoutMs?: number): Promise<Record<string, unknown>> {
    const row = (await this.#run(operation, text, values, timeoutMs))[0];
    if (row === undefined) throw new PostgresStoreError(`PostgreSQL ${operation} failed: no row came back`, { operation });
    return row;
  }

  #purgeNow(): void {
    const now = performance.now(); // monotonic: a wall-clock step neither stops nor floods the purges
    if (now < this.#nextPurgeAt) return;
    this.#nextPurgeAt = now + PURGE_EVERY_MS;
    // best effort: a failed purge is retried a minute later, and never fails a delivery
    this.purgeExpired().catch(() => undefined);
  }
}

function checkLeaseMs(leaseMs: unknown): asserts leaseMs is number {
  if (typeof leaseMs !== 'number' || !(leaseMs > 0) || leaseMs > Number.MAX_SAFE_INTEGER) {
    throw new TypeError(`leaseMs must be a positive number of milliseconds, got ${quote(leaseMs)}`);
  }
}

/** `null` for no lease (any claim). */
function leaseOwner(lease: unknown): string | null {
  if (lease === undefined) return null;
  if (typeof lease === 'string' && UUID.test(lease)) return lease;
  throw new TypeError(`lease must be the lease this store's claim returned, got ${typeName(lease)}`);
}
