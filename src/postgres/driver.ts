import { typeName } from '../internal/type-name.js';
import { PgSession, within } from './pg-session.js';

import type { PgPoolClientLike, PgPoolLike, PgQueryResult } from './pg-types.js';

/** The part of a [postgres.js](https://github.com/porsager/postgres) (v3) `sql`, as `postgres(url)` returns it, the stores use. */
export interface PostgresJsSqlLike extends PostgresJsTransactionLike {
  /** Runs `run` inside `BEGIN` … `COMMIT` on one connection. */
  begin(run: (sql: PostgresJsTransactionLike) => unknown): PromiseLike<unknown>;
}

/** The part of a postgres.js transaction `sql` (what `sql.begin` hands its callback) the stores use. */
export interface PostgresJsTransactionLike {
  /** Runs one parameterised statement. */
  unsafe(query: string, parameters?: never[]): PromiseLike<unknown>;
}

/** A node-postgres (`pg` v8) `Pool` or a postgres.js `sql`. */
export type PostgresPoolLike =
  | {
      /** Runs one statement on a pooled connection. */
      query(text: string, values?: unknown[]): Promise<PgQueryResult>;
      /** Checks out a client for a transaction. */
      connect(): Promise<PgPoolClientLike>;
    }
  | PostgresJsSqlLike;

/** The `transaction` handed to `onEvent` or `onChange` for a pool type: the `pg` `PoolClient` its `connect` gives. */
export type PostgresTransaction<Pool> = Pool extends PostgresJsSqlLike
  ? Pool
  : Pool extends { connect(callback: (error: never, client: infer Client, done: never) => void): void }
    ? NonNullable<Client>
    : Pool extends { connect(): Promise<infer Client> }
      ? Client
      : unknown;

/** Both drivers' plain statements; transactions are `pg`'s only ({@link runProvenTransaction}). */
export interface Driver {
  readonly kind: 'pg' | 'postgres.js';
  readonly pgPool: PgPoolLike | undefined;
  /**
   * Runs one statement within `timeoutMs`, retrying a serialization failure or deadlock. Past it, `pg` destroys the connection;
   * postgres.js gives no handle on it, so only the wait ends.
   */
  query(text: string, values: unknown[], timeoutMs: number): Promise<Record<string, unknown>[]>;
  /** Runs statements without parameters as one simple query, which PostgreSQL runs as one implicit transaction. */
  script(text: string, timeoutMs: number): Promise<void>;
}

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

// serialization failure, deadlock: a statement alone runs at the server's default isolation (serializable on some managed
// servers), where concurrent claims fail so; PostgreSQL rolled it back whole, so running it again is safe
const RETRIED = new Set(['40001', '40P01']);
export const SERIALIZATION_ATTEMPTS = 5;

/** Retries within `timeoutMs`, with a random pause so that the contenders do not collide again in step. */
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
  // a client per statement, not pool.query: only then can a statement that never answers have its connection destroyed
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
      // without parameters postgres.js sends one simple query
      await retried(timeoutMs, (leftMs) => bounded(sql.unsafe(text), leftMs));
    },
  };
}
