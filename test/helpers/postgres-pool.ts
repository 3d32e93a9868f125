import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type PostgresServer } from './postgres-server.js';

/**
 * A pg pool whose idle clients may lose their session (a test stops or kills the server, or ends a
 * backend) without an unhandled 'error' event taking the test process down. Ended ones too:
 * `pool.end()` resolves before their sockets close, so a server stopped right after may still tell
 * them it is shutting down (57P01), once the pool has let go of them.
 */
export function pgPool(connectionString: string, config: Omit<pg.PoolConfig, 'connectionString'> = {}): pg.Pool {
  const pool = new pg.Pool({ ...config, connectionString });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** The test file's PostgreSQL server and a pool on it; both exist from beforeAll on. */
export interface TestPostgres {
  readonly server: PostgresServer;
  readonly pool: pg.Pool;
}

/**
 * Starts a PostgreSQL server of this test file's own in beforeAll, with a pool on it (`config`), and
 * ends the pool then stops the server in afterAll: the setup each PostgreSQL test file repeated.
 */
export function usePostgres(config: Omit<pg.PoolConfig, 'connectionString'> = {}): TestPostgres {
  let server: PostgresServer | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    server = await startPostgres();
    pool = pgPool(server.url, config);
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('usePostgres: the server starts in beforeAll; read it inside a hook or a test');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get pool() {
      return started(pool);
    },
  };
}
