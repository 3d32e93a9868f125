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
  /**
   * A node-postgres `Pool` (`new pg.Pool(...)`, `pg` v8) or a postgres.js `sql` (`postgres(url)`,
   * `postgres` v3, plain mode only). The store never connects, ends or configures it; give it a connection timeout
   * (`pg`: `connectionTimeoutMillis`, postgres.js: `connect_timeout`) so a delivery during an
   * outage gets its 503 quickly.
   */
  pool: Pool;
  /**
   * The table, `name` or `schema.name` (letters, digits, `_`, `$`; used quoted, as written). Stores
   * that share a table share their events. Create it with {@link PostgresEventStore.ensureSchema}
   * or your migrations (the SQL is in `schemaSql`).
   * @default 'checkout_webhook_events'
   */
  table?: string | undefined;
  /**
   * Run the confirm reads and `onEvent` inside the claim's own transaction, and hand `onEvent` that
   * transaction (`transaction`): writes made through it commit together with the "done" mark, so
   * they happen exactly once. Without it the store is a plain lease store like `RedisEventStore`.
   * Needs a `pg` Pool (a postgres.js `sql` is refused: a type error, and a
   * `PostgresTransactionError` at run time).
   * @default false
   */
  transactional?: (Pool extends PostgresJsSqlLike ? false : Transactional) | undefined;
  /**
   * How long, in seconds, an event is remembered (from when it was done, or first seen if never
   * done). Older rows are purged in batches of 1,000, at most once a minute per store instance. A
   * redelivery after that is handled again, so keep it longer than the provider retries a delivery.
   * @default 604_800 (7 days)
   */
  ttlSeconds?: number | undefined;
  /**
   * How long, in milliseconds, the store waits for one of its own statements outside a delivery's
   * transaction (a plain-mode claim, `complete`, `release`, a purge, `ensureSchema()`) before it
   * gives up (its retries after a serialization failure or a deadlock included); with `pg`, that
   * connection is then destroyed, not returned to the pool, so a dead
   * network costs a bounded wait. A transaction's statements are bounded by the handler's
   * `leaseMs` instead. At most 2^31 − 1 (about 24.8 days): no timer waits longer.
   * @default 10_000
   */
  statementTimeoutMs?: number | undefined;
}

/**
 * Runs one event inside the store's transaction; see {@link TransactionalEventStore.transact}.
 */
export type PostgresTransact<Transaction> = TransactionalEventStore<Transaction>['transact'];

const DEFAULT_TTL_SECONDS = 7 * 24 * 60 * 60;
/** Rows one purge deletes at most, so a purge never holds many row locks or runs long. */
const PURGE_BATCH = 1_000;
const PURGE_EVERY_MS = 60_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Thrown out of the transaction callback so it rolls back; never leaves this module. */
class Settled {
  constructor(readonly result: 'in-flight' | 'done') {}
}

/**
 * An {@link EventStore} in the partner's own PostgreSQL, shared by any number of webhook receivers.
 *
 * **Plain mode** (default): a claim is a row with a lease owner (a random UUID) and a lease end,
 * taken by one atomic `INSERT … ON CONFLICT … DO UPDATE … WHERE` (the row is new, or its lease has
 * lapsed and it is not done); `complete` and `release` act only on the caller's own claim, so a
 * worker whose lease lapsed cannot settle the next worker's claim (without a lease they settle
 * whichever claim holds the event). The same guarantees as
 * `RedisEventStore`: at-least-once `onEvent`, once per event while nothing crashes.
 *
 * **Transactional mode** (`transactional: true`): each delivery opens a transaction, locks the
 * event's row with `FOR UPDATE SKIP LOCKED` (locked → 409, done → 200), runs the confirm reads and
 * `onEvent({ ..., transaction })` in it, marks the row done and commits (200). `onEvent` throws →
 * rollback (500). The process dies anywhere → PostgreSQL rolls back the partner's writes and the
 * claim together. Writes through `transaction` therefore happen exactly once; anything else
 * `onEvent` does (emails, calls to other services) stays at-least-once. Each transaction is proven:
 * its `txid_current()` is recorded at `BEGIN` and the done mark only applies in that transaction,
 * so a lost session fails the delivery (503) and never marks it done elsewhere; `transaction`
 * refuses `COMMIT`/`ROLLBACK`/`BEGIN`/`release()`/`end()`, and every statement once `onEvent` resolved (a
 * misuse fails the delivery with 500 and a {@link PostgresTransactionError}). A transaction is
 * bounded by the handler's `leaseMs` on both sides: `statement_timeout` and
 * `idle_in_transaction_session_timeout` (`SET LOCAL`), and client-side waits after which its
 * connection is destroyed (a blackholed network). A long transaction locks one row, never the table.
 * The store's part of a delivery is one pool checkout and two round trips: the row inserted when new
 * (committed on its own, so no delivery waits on another's insert), `BEGIN`, the txid and the lock
 * in the first; the done mark, which fails unless it applied in that transaction, and `COMMIT` in
 * the second (the statements are sent without parameters, values inlined as dollar-quoted constants).
 * Transactional mode needs a `pg` Pool: a postgres.js `sql` is refused there (see
 * {@link PostgresTransactionError}, `reason: 'unsupported-driver'`).
 *
 * Event ids of any characters are accepted: ids over 200 UTF-8 bytes, or holding a NUL or a lone
 * surrogate (which PostgreSQL `text` cannot store or index), or starting with `sha256` (so no
 * literal id equals a hash), are stored as their SHA-256 (`sha256:<hex>`, `sha256u:<hex>`).
 *
 * Every database failure rejects with {@link PostgresStoreError}; the webhook handler answers 503.
 * Statements outside a transaction wait at most `statementTimeoutMs`.
 * Requires PostgreSQL 11 or later.
 *
 * @example
 * // pg, transactional
 * import pg from 'pg';
 * import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000, keepAlive: true });
 * // pg requires it: an idle client whose session ends (a restart, a failover) is reported here, else the process crashes
 * pool.on('error', (error) => console.warn('idle PostgreSQL client lost', error.message));
 * const store = new PostgresEventStore({ pool, transactional: true });
 * await store.ensureSchema();
 * const handler = createWebhookHandler({
 *   secret, client, store,
 *   onEvent: async ({ event, transaction }) => {
 *     await transaction.query('INSERT INTO payments (event_id, kind) VALUES ($1, $2)', [event.eventId, event.type]);
 *   },
 * });
 *
 * @example
 * // postgres.js, plain leases
 * import postgres from 'postgres';
 * const store = new PostgresEventStore({ pool: postgres(process.env.DATABASE_URL!) });
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
  /**
   * Present in transactional mode only (`undefined` otherwise): the webhook handler runs each
   * delivery through it. See {@link TransactionalEventStore.transact}.
   */
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
    // a longer timer fires at once, which would time out every statement
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
   * Checks the table's shape and the role's rights on it, and creates only what is missing
   * (`CREATE … IF NOT EXISTS`, serialised by an advisory lock so receivers starting together do not
   * race). A table your migrations made from `schemaSql` thus needs no CREATE right: SELECT,
   * INSERT, UPDATE and DELETE are enough. Safe to call on every start.
   *
   * @throws {PostgresStoreError} (operation `'schema'`) when PostgreSQL refuses (the message names
   *   the missing right), or the table exists with another shape (the message names what is wrong).
   */
  async ensureSchema(): Promise<void> {
    await ensureTable(this.#driver, this.#sql, this.table, this.#statementTimeoutMs);
  }

  /**
   * Deletes at most `maxRows` rows older than `ttlSeconds` (done ones from when they were done),
   * skipping rows a delivery holds, and resolves with how many it deleted. The store runs it on
   * its own at most once a minute; call it from a job when you want more.
   *
   * @throws {PostgresStoreError} (operation `'purge'`)
   */
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

  /**
   * Claims `eventId` for `leaseMs` milliseconds (PostgreSQL's clock): `{ status: "claimed", lease }`
   * when the caller now owns it, `"in-flight"` when a live claim holds it, `"done"` when it was completed.
   * A live claim taken under the same `options.owner` (by any process) is taken back: claimed again.
   */
  async claim(eventId: string, leaseMs: number, options?: ClaimOptions): Promise<ClaimedLease | 'in-flight' | 'done'> {
    checkEventId(eventId);
    checkLeaseMs(leaseMs);
    const named = claimOwner(options);
    this.#purgeNow();
    // the owner's id is the same on each restart, so its own live claims are taken back
    const owner = named === undefined ? globalThis.crypto.randomUUID() : await ownerLeaseId(named);
    // a claim answered after its lease would be worthless: it waits no longer than that
    const row = await this.#one(
      'claim',
      this.#sql.claim,
      [await eventRowId(eventId), owner, Math.ceil(leaseMs)],
      Math.min(this.#statementTimeoutMs, leaseMs),
    );
    if (row['claimed'] !== true) return row['state'] === 'done' ? 'done' : 'in-flight';
    return { status: 'claimed', lease: owner };
  }

  /**
   * Marks the claim that returned `lease` on `eventId` done, or the event when nobody holds it (the
   * lease lapsed unclaimed: the work was done all the same); resolves when it is done already.
   * Without a lease (`undefined`) it marks `eventId` done whichever claim holds it.
   *
   * @throws {PostgresStoreError} (operation `'complete'`) when another worker holds the event (the
   *   caller's lease lapsed and it was claimed again: that claim is left alone), and on any failure.
   * @throws {TypeError} when `lease` is neither `undefined` nor a lease this store's claim returned.
   */
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

  /**
   * Gives up the claim that returned `lease` on `eventId`, so a redelivery can claim it at once;
   * does nothing when another claim holds the event. Without a lease (`undefined`) it frees
   * whichever claim holds `eventId`; a done event stays done.
   *
   * @throws {TypeError} when `lease` is neither `undefined` nor a lease this store's claim returned.
   */
  async release(eventId: string, lease?: unknown): Promise<void> {
    checkEventId(eventId);
    const owner = leaseOwner(lease);
    await this.#run('release', this.#sql.release, [await eventRowId(eventId), owner]);
  }

  /**
   * Extends the plain-mode claim that returned `lease` to `leaseMs` from now (PostgreSQL's clock):
   * `true` while it still holds `eventId`, `false` once another claim took it or it was settled.
   *
   * @throws {PostgresStoreError} (operation `'extend'`) on any failure.
   * @throws {TypeError} when `lease` is not a lease this store's claim returned.
   */
  async renew(eventId: string, lease: unknown, leaseMs: number): Promise<boolean> {
    checkEventId(eventId);
    const owner = leaseOwner(lease);
    if (owner === null) throw new TypeError("lease must be the lease this store's claim returned, got undefined");
    checkLeaseMs(leaseMs);
    const rows = await this.#run('extend', this.#sql.renew, [await eventRowId(eventId), owner, Math.ceil(leaseMs)]);
    return rows.length > 0;
  }

  /**
   * Milliseconds left on the live plain-mode claim that holds `eventId` (PostgreSQL's clock), `0`
   * when none does, `undefined` when a transaction holds it (transactional mode records no lease end:
   * the transaction is the claim, bounded by `leaseMs`, and ends with its connection).
   *
   * @throws {PostgresStoreError} (operation `'get'`) on any failure.
   */
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
    // the type is only recorded: NUL (which text cannot hold) and lone surrogates become U+FFFD
    const type = event.type.toWellFormed().replaceAll('\u0000', '\ufffd');
    const pool = this.#driver.pgPool;
    if (pool === undefined) throw new PostgresTransactionError('transact needs a pg Pool', { reason: 'unsupported-driver' }); // refused in the constructor
    // two round trips on one connection: [insert the row, committed; BEGIN; bounds and txid; the
    // row as committed; the row locked], onEvent's own statements, [the done mark proving the txid; COMMIT]
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
          // not locked: done is done; otherwise another transaction or a plain-mode claim holds it,
          // or it was purged since the insert (nobody holds it): 409 has it redelivered
          if (row === undefined) throw new Settled(seen?.[0]?.['state'] === 'done' ? 'done' : 'in-flight');
          if (row['state'] === 'done') throw new Settled('done');
          if (row['leased'] === true) throw new Settled('in-flight'); // a plain-mode claim holds it
          await runPartnerWork(transaction, work);
          return 'handled';
        },
        {
          prelude: sql.insert(idText, typeText),
          opening: sql.claim(idText),
          // the claim must still be held by this very transaction: the done mark proves the txid
          // itself, and COMMIT runs only when it did (a COMMIT or ROLLBACK that got through
          // `transaction` fails the delivery as a misuse)
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

  /** Starts one purge batch in the background when the last one began a minute ago or more. */
  #purgeNow(): void {
    const now = performance.now(); // pacing only, on a monotonic clock: a wall-clock step neither stops nor floods it
    if (now < this.#nextPurgeAt) return;
    this.#nextPurgeAt = now + PURGE_EVERY_MS;
    // best effort: a failed purge is retried a minute later, and never fails a delivery
    this.purgeExpired().catch(() => undefined);
  }
}

/** `leaseMs` of `claim` and `renew`: a positive number of milliseconds, else a `TypeError`. */
function checkLeaseMs(leaseMs: unknown): asserts leaseMs is number {
  if (typeof leaseMs !== 'number' || !(leaseMs > 0) || leaseMs > Number.MAX_SAFE_INTEGER) {
    throw new TypeError(`leaseMs must be a positive number of milliseconds, got ${quote(leaseMs)}`);
  }
}

/** The owner id a claim of this store returned as its lease, `null` for no lease (any claim), else a `TypeError`. */
function leaseOwner(lease: unknown): string | null {
  if (lease === undefined) return null;
  if (typeof lease === 'string' && UUID.test(lease)) return lease;
  throw new TypeError(`lease must be the lease this store's claim returned, got ${typeName(lease)}`);
}
