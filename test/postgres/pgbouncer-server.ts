import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, chmodSync, chownSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';

/** A PgBouncer of a test's own on 127.0.0.1, in front of a test PostgreSQL. */
export interface PgBouncer {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  /** Stops it (SIGTERM to its pid, waited for) and removes its temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

const BINARY = process.env.PGBOUNCER ?? '/usr/sbin/pgbouncer';
const isRoot = process.getuid?.() === 0;

/** Whether a pgbouncer binary is there (`PGBOUNCER`, else /usr/sbin/pgbouncer). */
export const pgbouncerAvailable = (): boolean => existsSync(BINARY);

/**
 * Starts pgbouncer in transaction pooling (`pool_mode = transaction`) on a free 127.0.0.1 port, in
 * front of PostgreSQL on `postgresPort`, with a temp ini and userlist (trust), as a daemon whose
 * pid it reads from its pidfile (as the `postgres` OS user when we are root: pgbouncer refuses root).
 */
export async function startPgBouncer(postgresPort: number, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const dir = await mkdtemp(join(tmpdir(), 'checkout-sdk-pgbouncer-'));
  const ini = join(dir, 'pgbouncer.ini');
  const pidfile = join(dir, 'pgbouncer.pid');
  const log = join(dir, 'pgbouncer.log');
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
  let lastError = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    writeFileSync(
      ini,
      [
        '[databases]',
        `postgres = host=127.0.0.1 port=${postgresPort} dbname=postgres`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        "unix_socket_dir = ''",
        'auth_type = trust',
        `auth_file = ${join(dir, 'userlist.txt')}`,
        'pool_mode = transaction',
        `default_pool_size = ${options.poolSize ?? 10}`,
        'max_client_conn = 500',
        // what drivers send at startup that transaction pooling cannot keep per client
        'ignore_startup_parameters = extra_float_digits,options',
        `logfile = ${log}`,
        `pidfile = ${pidfile}`,
        '',
      ].join('\n'),
    );
    if (isRoot) {
      const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      chmodSync(dir, 0o755);
      for (const path of [dir, ini, join(dir, 'userlist.txt')]) chownSync(path, uid, gid);
    }
    const [command, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', BINARY, '-d', ini]] : [BINARY, ['-d', ini]];
    const started = spawnSync(command, argv, { encoding: 'utf8', timeout: 10_000 });
    // -d returns once the daemon forked; its pidfile and listening socket follow shortly
    for (let wait = 0; wait < 50 && !existsSync(pidfile); wait++) await new Promise((resolve) => setTimeout(resolve, 100));
    if (existsSync(pidfile)) {
      const pid = Number(readFileSync(pidfile, 'utf8').trim());
      let stopped = false;
      return {
        port,
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        async stop() {
          if (stopped) return;
          stopped = true;
          try {
            process.kill(pid, 'SIGTERM');
            for (let wait = 0; wait < 100; wait++) {
              try {
                process.kill(pid, 0);
              } catch {
                break; // gone
              }
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          } catch {
            // already gone
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        },
      };
    }
    lastError = `${started.stdout}${started.stderr}${existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : ''}`;
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`pgbouncer did not start: ${lastError}`);
}
