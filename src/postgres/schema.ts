import type { Driver } from './driver.js';
import { PostgresStoreError, storeError } from './errors.js';

const INSUFFICIENT_PRIVILEGE = '42501';

export interface SchemaStatements {
  schema: readonly string[];
  schemaLock: string;
  shape: string;
  /** Rows when a table of the right shape still needs `schema` run (an earlier version's). */
  migrationNeeded?: string;
  /** A row (`name`, `kind`) per earlier version's constraint and `refusedValues` value it refuses. */
  migrationRefuses?: string;
  refusedValues?: readonly unknown[];
}

/** `ensureSchema()`: the shape is checked first, so a table that migrations made needs no CREATE right. */
export async function ensureTable(driver: Driver, sql: SchemaStatements, table: string, timeoutMs: number): Promise<void> {
  const shapeProblems = async () => (await driver.query(sql.shape, [], timeoutMs)).map((row) => String(row['problem']));
  let problems: string[];
  try {
    problems = await shapeProblems();
  } catch (error) {
    throw privilegeError(error, 'USAGE', `to find the table ${table}`) ?? storeError('schema', error);
  }
  if (problems.length > 0) {
    try {
      // one simple query: its implicit transaction holds the lock over the DDL
      await driver.script(`${sql.schemaLock}\n${sql.schema.join('\n')}`, timeoutMs);
      problems = await shapeProblems();
    } catch (error) {
      const tableExists = !problems.includes('the table does not exist');
      const refused = privilegeError(error, 'CREATE', `to create what is missing (${problems.join('; ')})`, tableExists);
      if (refused !== undefined) throw refused;
      // a table of another shape fails CREATE INDEX: say what is wrong with it instead
      const found = await shapeProblems().catch(() => []);
      if (found.length === 0) throw storeError('schema', error);
      problems = found;
    }
  }
  if (problems.length === 0 && sql.migrationNeeded !== undefined) await migrate(driver, sql.migrationNeeded, sql, table, timeoutMs);
  if (problems.length > 0) {
    throw new PostgresStoreError(
      `PostgreSQL schema failed: the table ${table} exists but does not have the shape the store needs: ${problems.join('; ')}. ` +
        'Fix or rename it (the SQL is in schemaSql)',
      { operation: 'schema' },
    );
  }
  let missing: string[];
  try {
    missing = (await driver.query(privilegesSql(table), [], timeoutMs)).map((row) => String(row['privilege']));
  } catch (error) {
    throw storeError('schema', error);
  }
  if (missing.length > 0) {
    const named = (await driver.query('SELECT current_user::text AS u', [], timeoutMs).catch(() => []))[0]?.['u'];
    const user = typeof named === 'string' ? named : 'the role';
    throw new PostgresStoreError(
      `PostgreSQL schema failed: the role ${JSON.stringify(user)} lacks ${missing.join(', ')} on the table ${table} (insufficient_privilege, 42501): ` +
        `the store needs SELECT, INSERT, UPDATE and DELETE on it (GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO ${JSON.stringify(user)})`,
      { operation: 'schema' },
    );
  }
}

/** A role that may not alter an earlier version's table leaves it while it refuses no kind of this one; else says what to run. */
async function migrate(driver: Driver, needed: string, sql: SchemaStatements, table: string, timeoutMs: number): Promise<void> {
  try {
    if ((await driver.query(needed, [], timeoutMs)).length === 0) return;
    await driver.script(`${sql.schemaLock}\n${sql.schema.join('\n')}`, timeoutMs);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== INSUFFICIENT_PRIVILEGE) throw storeError('schema', error);
    const refused =
      sql.migrationRefuses === undefined ? [] : await driver.query(sql.migrationRefuses, [...(sql.refusedValues ?? [])], timeoutMs);
    if (refused.length === 0) return;
    throw migrationRefused(table, refused, error);
  }
}

function migrationRefused(table: string, rows: readonly Record<string, unknown>[], cause: unknown): PostgresStoreError {
  const names = [...new Set(rows.map((row) => String(row['name'])))];
  const kinds = [...new Set(rows.map((row) => String(row['kind'])))];
  const drops = names.map((name) => `ALTER TABLE ${table} DROP CONSTRAINT "${name.replaceAll('"', '""')}";`).join(' ');
  return new PostgresStoreError(
    `PostgreSQL schema failed: the table ${table} has a CHECK on kind (as version 1.0.0 made it) that refuses ` +
      `${kinds.map((kind) => JSON.stringify(kind)).join(', ')}, and only the table's owner can drop it ` +
      `(insufficient_privilege, 42501). Run as the owner: ${drops} (or the store's schemaSql in your migrations)`,
    { operation: 'schema', cause },
  );
}

function privilegesSql(table: string): string {
  // the table name is a checked, quoted identifier: safe inside a literal
  return `SELECT p AS privilege FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) AS p
WHERE NOT has_table_privilege(to_regclass('${table}'), p)`;
}

/** A 42501 as a {@link PostgresStoreError} that says which right is missing and what for; otherwise undefined. */
function privilegeError(
  error: unknown,
  schemaRight: 'USAGE' | 'CREATE',
  neededFor: string,
  tableExists = false,
): PostgresStoreError | undefined {
  if ((error as { code?: unknown } | null)?.code !== INSUFFICIENT_PRIVILEGE) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  const right = /permission denied for schema (\S+)/.exec(message);
  const owner = /must be owner of (?:table|relation) (\S+)/.exec(message);
  // only its owner can complete an existing table
  const advice =
    tableExists || owner
      ? `only the table's owner can add ${neededFor.replace(/^to create /, '')}`
      : right
        ? `the role needs ${schemaRight} on schema ${right[1]} ${neededFor}`
        : `the role lacks a right ${neededFor}`;
  return new PostgresStoreError(
    `PostgreSQL schema failed: ${message} (insufficient_privilege, 42501): ${advice}. Either grant it, or run the store's schemaSql in your ` +
      'migrations as a role that may (then ensureSchema() only checks the table, and the store needs SELECT, INSERT, UPDATE and DELETE on it)',
    { operation: 'schema', cause: error },
  );
}
