import type { Driver } from './driver.js';
import { PostgresStoreError, storeError } from './errors.js';

/** SQLSTATE insufficient_privilege. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** What {@link ensureTable} needs of a store's statements. */
export interface SchemaStatements {
  /** The `CREATE … IF NOT EXISTS` statements. */
  schema: readonly string[];
  /** The advisory lock that serialises concurrent creations (see `schemaLockSql`). */
  schemaLock: string;
  /** The shape query (see `shapeSql`): one `problem` per row, none when the table is right. */
  shape: string;
  /** Rows when a table of the right shape still needs `schema` run (what an earlier version made differently). */
  migrationNeeded?: string;
  /** With `refusedValues` as its parameters: a row (`name`, `kind`) per constraint of an earlier version and value of this one it refuses. */
  migrationRefuses?: string;
  /** The parameters of `migrationRefuses`. */
  refusedValues?: readonly unknown[];
}

/**
 * `ensureSchema()` of both stores. The shape is checked first, so a table that migrations made
 * from `schemaSql` needs no CREATE right at all (a role with SELECT, INSERT, UPDATE and DELETE
 * only); only what is missing is created (`CREATE … IF NOT EXISTS` under an advisory lock, in one
 * simple query), then the shape is checked again, and the role's rights on the table last. A
 * refusal (42501) names the right that is missing and what it was needed for.
 */
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
      // one simple query, so one implicit transaction holds the lock over the DDL without BEGIN
      await driver.script(`${sql.schemaLock}\n${sql.schema.join('\n')}`, timeoutMs);
      problems = await shapeProblems();
    } catch (error) {
      const tableExists = !problems.includes('the table does not exist');
      const refused = privilegeError(error, 'CREATE', `to create what is missing (${problems.join('; ')})`, tableExists);
      if (refused !== undefined) throw refused;
      // a table of another shape fails CREATE INDEX (a missing column): say what is wrong with it instead
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

/**
 * Runs the schema again for a table an earlier version made (the status table's 1.0 CHECK on kind).
 * A role that may not alter the table (a migrations-managed one) leaves it as it is while what the
 * migration removes refuses nothing of this version; once it would refuse a kind this version
 * has, the error says what the table's owner must run.
 */
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

/**
 * The error of a table whose constraints from an earlier version refuse values this version
 * writes, and that only its owner may drop: the statements to run as the owner.
 */
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

/** The table rights the store's statements use that the current role lacks, one `privilege` per row. */
function privilegesSql(table: string): string {
  // the table name is a checked, quoted identifier: safe inside a literal
  return `SELECT p AS privilege FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) AS p
WHERE NOT has_table_privilege(to_regclass('${table}'), p)`;
}

/** A 42501 from the driver as a {@link PostgresStoreError} that says which right is missing and what it was for; otherwise undefined. */
function privilegeError(
  error: unknown,
  schemaRight: 'USAGE' | 'CREATE',
  neededFor: string,
  tableExists = false,
): PostgresStoreError | undefined {
  if ((error as { code?: unknown } | null)?.code !== INSUFFICIENT_PRIVILEGE) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  // "permission denied for schema public" → CREATE (or USAGE) on that schema; "must be owner of table x" → ownership
  const right = /permission denied for schema (\S+)/.exec(message);
  const owner = /must be owner of (?:table|relation) (\S+)/.exec(message);
  // an existing table (an index a newer version added) can only be completed by its owner
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
