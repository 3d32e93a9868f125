import pg from 'pg';
import postgres from 'postgres';
import type { PostgresPoolLike } from 'checkout-partner-sdk/postgres';

/** One driver's pool on a test server, and how a test writes through a transaction of it. */
export interface Connection {
  readonly pool: PostgresPoolLike;
  /** Runs a statement on the pool (outside any store). */
  exec(text: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs a statement through `onEvent`'s `transaction`. */
  write(transaction: unknown, text: string, values?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

export interface Driver {
  readonly name: 'pg' | 'postgres.js';
  connect(url: string): Connection;
}

export const drivers: readonly Driver[] = [
  {
    name: 'pg',
    connect(url) {
      const pool = new pg.Pool({ connectionString: url, max: 20, connectionTimeoutMillis: 2_000 });
      pool.on('error', () => undefined); // idle clients lose their session when a test stops the server
      return {
        pool,
        exec: async (text, values) => (await pool.query<Record<string, unknown>>(text, values)).rows,
        write: async (transaction, text, values) => {
          await (transaction as pg.PoolClient).query(text, values);
        },
        close: () => pool.end(),
      };
    },
  },
  {
    name: 'postgres.js',
    connect(url) {
      const sql = postgres(url, { max: 20, connect_timeout: 2, onnotice: () => undefined, idle_timeout: 5 });
      return {
        pool: sql,
        exec: async (text, values) => [...(await sql.unsafe(text, values as never[]))] as Record<string, unknown>[],
        write: async (transaction, text, values) => {
          await (transaction as postgres.TransactionSql).unsafe(text, values as never[]);
        },
        close: () => sql.end({ timeout: 1 }),
      };
    },
  },
];

let tables = 0;
/** A table name no other test uses. */
export const uniqueTable = (): string => `events_${process.pid}_${++tables}`;
