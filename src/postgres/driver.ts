import { typeName } from '../internal/type-name.js';
import { PgSession, within } from './pg-session.js';

import type { PgPoolClientLike, PgPoolLike, PgQueryResult } from './pg-types.js';

/**
 * The part of a [postgres.js](https://github.com/porsager/postgres) (`postgres`, v3) `sql` instance
 * the store uses: `unsafe` for parameterised statements and `begin` for transactions. The
 * `sql` that `postgres(url)` returns fits.
 */
export interface PostgresJsSqlLike extends PostgresJsTransactionLike {
  /** Runs `run` inside `BEGIN` … `COMMIT` on one connection. */
  begin(run: (sql: PostgresJsTransactionLike) => unknown): PromiseLike<unknown>;
}

/**
 * The part of a postgres.js transaction `sql` (what `sql.begin` hands its callback) the store uses.
 */
export interface PostgresJsTransactionLike {
  /** Runs one parameterised statement. */
  unsafe(query: string, parameters?: never[]): PromiseLike<unknown>;
}

/**
 * A `pg` Pool or a postgres.js `sql`: of a node-postgres (`pg`, v8) `Pool`, the store uses `query`
 * for single statements and `connect` for a client to run a transaction on.
 */
export type PostgresPoolLike =
  | {
      /** Runs one statement on a pooled connection. */
      query(text: string, values?: unknown[]): Promise<PgQueryResult>;
      /** Checks out a client for a transaction. */
      connect(): Promise<PgPoolClientLike>;
    }
  | PostgresJsSqlLike;

/**
 * The type of `onEvent`'s `transaction` for a pool type: the `pg` `PoolClient` its `connect` gives
 * (guarded: see `PostgresTransactionError`). A postgres.js `sql` maps to itself, but the store
 * refuses it in transactional mode.
 */
export type PostgresTransaction<Pool> = Pool extends PostgresJsSqlLike
  ? Pool
  : Pool extends { connect(callback: (error: never, client: infer Client, done: never) => void): void }
    ? NonNullable<Client>
    : Pool extends { connect(): Promise<infer Client> }
      ? Client
      : unknown;

/** The one place that knows both drivers' plain statements; transactions are `pg`'s ({@link runProvenTransaction}). */
export interface Driver {
  /** `pg` or postgres.js. */
  readonly kind: 'pg' | 'postgres.js';
  /** The `pg` pool, for transactions; undefined for postgres.js. */
  readonly pgPool: PgPoolLike | undefined;
  /**
   * Runs one statement within `timeoutMs`, rows as plain objects. With `pg`, a statement past it
   * has its connection destroyed (never given back to the pool); postgres.js gives no handle on its
   * connection, so there the wait ends and the statement is left to its own timeouts. A
   * serialization failure or a deadlock (the session's default isolation applies to a statement
   * outside a transaction) is retried, a bounded number of times within `timeoutMs`.
   */
  query(text: string, values: unknown[], timeoutMs: number): Promise<Record<string, unknown>[]>;
  /**
   * Runs `text`, several statements without parameters, as one simple query: PostgreSQL runs them
   * as one implicit transaction (no `BEGIN` needed, so no driver transaction API is used).
   */
  script(text: string, timeoutMs: number): Promise<void>;
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

/**
 * SQLSTATEs after which a statement outside a transaction is run again: `40001` serialization
 * failure and `40P01` deadlock. Such a statement runs alone in a transaction at the session's
 * default isolation (`default_transaction_isolation`, `serializable` or `repeatable read` on some
 * managed servers), where two trackers claiming the same due rows, or two copies of one webhook,
 * can fail this way; PostgreSQL rolled the whole statement back, so running it again is safe.
 */
const RETRIED = new Set(['40001', '40P01']);
/** Attempts of one statement, the first included, when each fails as {@link RETRIED}. */
export const SERIALIZATION_ATTEMPTS = 5;

/**
 * Runs `attempt` until it does not fail with {@link RETRIED}, at most {@link SERIALIZATION_ATTEMPTS}
 * times and within `timeoutMs` in all (each attempt gets what is left), with a short random pause
 * between attempts so that the contenders do not collide again in step. The last failure is
 * rethrown as it came (its `code` tells what it is).
 */
async function retried<T>(timeoutMs: number, attempt: (timeoutMs: number) => Promise<T>): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (let n = 1; ; n++) {
    try {
      return await attempt(Math.max(1, Math.ceil(deadline - performance.now())));
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      const pauseMs = Math.random() * 10 * n;
      if (typeof code !== 'string' || !RETRIED.has(code) || n >= SERIALIZATION_ATTEMPTS || performance.now() + pauseMs >= deadline) {
        if (typeof code === 'string' && RETRIED.has(code) && error instanceof Error) (error as { attempts?: number }).attempts = n;
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

function pgDriver(pool: PgPoolLike): Driver {
  // each statement checks out its own client rather than pool.query: only then can one that stops
  // answering (a blackholed network) have its connection destroyed instead of returned to the pool
  const run = (text: string, values: unknown[] | undefined, timeoutMs: number): Promise<unknown> =>
    retried(timeoutMs, async (leftMs) => {
      const session = await PgSession.open(pool, leftMs);
      try {
        return await session.query(text, values, leftMs);
      } finally {
        session.release();
      }
    });
  return {
    kind: 'pg',
    pgPool: pool,
    async query(text, values, timeoutMs) {
      const result = (await run(text, values, timeoutMs)) as { rows?: unknown };
      return Array.isArray(result.rows) ? (result.rows as Record<string, unknown>[]) : [];
    },
    async script(text, timeoutMs) {
      await run(text, undefined, timeoutMs);
    },
  };
}

function postgresJsDriver(sql: PostgresJsSqlLike): Driver {
  // postgres.js gives no handle on the statement's connection: the wait ends, the statement does not
  const aftermath = 'postgres.js keeps the connection until PostgreSQL answers or its own timeouts end it';
  const bounded = <T>(promise: PromiseLike<T>, timeoutMs: number) =>
    within(Promise.resolve(promise), timeoutMs, 'a PostgreSQL statement', () => undefined, undefined, aftermath);
  return {
    kind: 'postgres.js',
    pgPool: undefined,
    async query(text, values, timeoutMs) {
      return retried(timeoutMs, async (leftMs) => [
        ...((await bounded(sql.unsafe(text, values as never[]), leftMs)) as Iterable<Record<string, unknown>>),
      ]);
    },
    async script(text, timeoutMs) {
      // no parameters: postgres.js sends it as one simple query
      await retried(timeoutMs, (leftMs) => bounded(sql.unsafe(text), leftMs));
    },
  };
}
