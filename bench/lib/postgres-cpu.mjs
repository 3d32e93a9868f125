// What a PostgreSQL workload costs, for the parts that weigh the tracker's store: the server's CPU
// (its processes' user + system time from /proc, Linux only) and the statements sent, by their text.
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

const TICKS_PER_SECOND = 100; // CLK_TCK on Linux

/** The postmaster's pid: the parent of the backend that answers on `pool`. */
export async function postmasterOf(pool) {
  const { rows } = await pool.query('SELECT pg_backend_pid() AS pid');
  return Number(readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
}

/**
 * CPU microseconds used so far by the postmaster and its children (backends, autovacuum, WAL
 * writer, ...), those that exited included: the postmaster reaps them, and their time is then in its
 * cutime and cstime (an idle pooled connection closing would otherwise take its CPU out of the sum).
 */
export function databaseCpuMicros(postmaster) {
  let ticks = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    if (Number(name) === postmaster) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    else if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks / TICKS_PER_SECOND) * 1e6;
}

/**
 * Counts every statement sent through `pg` in this process (each `Client#query` is a round trip),
 * by its text: pools made here and pools a library made from the same `pg` alike. Call once.
 */
export function countStatements() {
  const statements = new Map();
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    statements.set(text, (statements.get(text) ?? 0) + 1);
    return query.call(this, config, ...rest);
  };
  return statements;
}

/** The counted statements summed by their first words, per `per` (e.g. per read), and cleared. */
export function statementsPer(statements, per) {
  const byWords = new Map();
  for (const [text, n] of statements) {
    const what = typeof text === 'string' ? text.replace(/\s+/g, ' ').trim().slice(0, 40) : 'other';
    byWords.set(what, (byWords.get(what) ?? 0) + n);
  }
  statements.clear();
  return Object.fromEntries([...byWords].sort((a, b) => b[1] - a[1]).map(([what, n]) => [what, +(n / per).toFixed(3)]));
}
