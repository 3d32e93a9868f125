/** The part of a node-postgres (`pg` v8) `Pool` the stores use. */
export interface PgPoolLike {
  /** Runs one statement on a pooled connection. */
  query(text: string, values?: unknown[]): Promise<PgQueryResult>;
  /** Checks out a client for a transaction. */
  connect(): Promise<PgPoolClientLike>;
}

/** The part of a `pg` query result the stores read. */
export interface PgQueryResult {
  /** The rows, as plain objects. */
  rows: unknown[];
}

/** The part of a `pg` `PoolClient` the stores use. */
export interface PgPoolClientLike {
  /** Runs one statement on this client's connection. */
  query(text: string, values?: unknown[]): Promise<PgQueryResult>;
  /** Gives the client back to the pool; with an error, the pool discards its connection. */
  release(error?: Error | boolean): void;
}
