import { typeName } from '../internal/type-name.js';

/**
 * The part of a node-postgres (`pg`, v8) `Pool` the store uses: `query` for single statements and
 * `connect` for a client to run a transaction on. A `pg.Pool` fits.
 */
export interface PgPoolLike {
  /** Runs one statement on a pooled connection. */
  query(text: string, values?: unknown[]): Promise<PgQueryResult>;
  /** Checks out a client for a transaction. */
  connect(): Promise<PgPoolClientLike>;
}

/** The part of a `pg` query result the store reads. */
export interface PgQueryResult {
  /** The rows, as plain objects. */
  rows: unknown[];
}

/** The part of a `pg` `PoolClient` the store uses. */
export interface PgPoolClientLike {
  /** Runs one statement on this client's connection. */
  query(text: string, values?: unknown[]): Promise<PgQueryResult>;
  /** Gives the client back to the pool; with an error, the pool discards its connection. */
  release(error?: Error | boolean): void;
}

/**
 * The part of a [postgres.js](https://github.com/porsager/postgres) (`postgres`, v3) `sql` instance
 * the store uses: `unsafe` for parameterised statements and `begin` for transactions. The
 * `sql` that `postgres(url)` returns fits.
 */
export interface PostgresJsSqlLike extends PostgresJsTransactionLike {
  /** Runs `run` inside `BEGIN` … `COMMIT` on one connection. */
  begin(run: (sql: PostgresJsTransactionLike) => unknown): PromiseLike<unknown>;
}

/** The part of a postgres.js transaction `sql` (what `sql.begin` hands its callback) the store uses. */
export interface PostgresJsTransactionLike {
  /** Runs one parameterised statement. */
  unsafe(query: string, parameters?: never[]): PromiseLike<unknown>;
}

/** A `pg` Pool or a postgres.js `sql`. */
export type PostgresPoolLike = PgPoolLike | PostgresJsSqlLike;

/**
 * The type of `onEvent`'s `transaction` for a pool type: the `pg` `PoolClient` its `connect` gives,
 * or, for postgres.js, the `sql` type itself (its `TransactionSql` extends it; cast to
 * `TransactionSql` from `postgres` for `savepoint`).
 */
export type PostgresTransaction<Pool> = Pool extends PostgresJsSqlLike
  ? Pool
  : Pool extends { connect(callback: (error: never, client: infer Client, done: never) => void): void }
    ? NonNullable<Client>
    : Pool extends { connect(): Promise<infer Client> }
      ? Client
      : unknown;

/** Runs statements: one round trip each, rows as plain objects. */
export interface Statements {
  query(text: string, values: unknown[]): Promise<Record<string, unknown>[]>;
}

/** The one place that knows both drivers: statements on the pool, and transactions. */
export interface Driver extends Statements {
  /**
   * Whether the store may have PostgreSQL end a transaction's session when it sits idle past its
   * lease. Not with postgres.js 3.4: a session ended inside `sql.begin` can crash the process from
   * a write scheduled on the closed socket (porsager/postgres#1154, #1208), and a dead
   * transaction's later statements can run outside it on a new connection (#1155).
   */
  readonly endsIdleSessions: boolean;
  /**
   * Runs `run` inside `BEGIN` … `COMMIT` on one connection; rolls back and rethrows when it
   * rejects. `transaction` is the driver's own handle (the `PoolClient`, or the transaction `sql`).
   */
  transaction<T>(run: (statements: Statements, transaction: unknown) => Promise<T>): Promise<T>;
}

/** Checks the `pool` option and wraps it: postgres.js when it has `unsafe` and `begin`, else `pg`. */
export function driverOf(pool: unknown, owner: string): Driver {
  const candidate = pool as Partial<Record<'unsafe' | 'begin' | 'query' | 'connect', unknown>> | null;
  if (typeof pool === 'function' && typeof candidate?.unsafe === 'function' && typeof candidate.begin === 'function') {
    return postgresJsDriver(pool as unknown as PostgresJsSqlLike);
  }
  if (pool !== null && typeof pool === 'object' && typeof candidate?.query === 'function' && typeof candidate.connect === 'function') {
    return pgDriver(pool as PgPoolLike);
  }
  throw new TypeError(`${owner}: pool must be a pg Pool (new pg.Pool(...)) or a postgres.js sql (postgres(url)), got ${typeName(pool)}`);
}

function pgDriver(pool: PgPoolLike): Driver {
  return {
    endsIdleSessions: true,
    async query(text, values) {
      return (await pool.query(text, values)).rows as Record<string, unknown>[];
    },
    async transaction(run) {
      const client = await pool.connect();
      // a session PostgreSQL ends (a timeout, a restart) makes an idle checked-out client emit
      // 'error', which would crash the process without a listener. The client is discarded at once,
      // not when `run` settles: a hung onEvent would otherwise hold its pool slot forever, and with
      // it every later delivery once the pool is full. `run`'s next statement then fails.
      let broken: Error | undefined;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        // a discarded client keeps the listener: an error it emits while ending must not crash the process
        if (broken === undefined) events.off?.('error', onError);
        client.release(broken ?? undefined);
      };
      const onError = (error: unknown) => {
        broken ??= error instanceof Error ? error : new Error(String(error));
        release();
      };
      const events = client as unknown as { on?: (name: string, listener: (error: unknown) => void) => void; off?: (name: string, listener: (error: unknown) => void) => void };
      events.on?.('error', onError);
      const statements: Statements = {
        async query(text, values) {
          return (await client.query(text, values)).rows as Record<string, unknown>[];
        },
      };
      try {
        await client.query('BEGIN');
        const result = await run(statements, client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          // the connection is gone or unusable: PostgreSQL rolls the transaction back itself
          broken ??= rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
        throw error;
      } finally {
        release();
      }
    },
  };
}

function postgresJsDriver(sql: PostgresJsSqlLike): Driver {
  const statementsOf = (target: PostgresJsTransactionLike): Statements => ({
    async query(text, values) {
      return [...((await target.unsafe(text, values as never[])) as Iterable<Record<string, unknown>>)];
    },
  });
  const statements = statementsOf(sql);
  return {
    endsIdleSessions: false,
    query: statements.query,
    async transaction(run) {
      // postgres.js commits when the callback resolves and rolls back when it rejects
      return (await sql.begin((transaction) => run(statementsOf(transaction), transaction))) as never;
    },
  };
}
