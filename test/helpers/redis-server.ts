import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';

/** A redis-server of a test's own, on 127.0.0.1. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Stops the server, waits until its process is gone, and removes its temp dir. Safe to call twice. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after `stop()`), with an empty dataset. */
  restart(): Promise<void>;
}

/**
 * The redis-server binary the Redis suites run, or `undefined` when there is none (npm cannot
 * install it): `REDIS_SERVER` when set, else `redis-server` on PATH, unless
 * `CHECKOUT_TEST_NO_SYSTEM_SERVERS=1` (to check a fresh machine). vitest.config.ts skips the Redis
 * suites without one.
 */
export function redisServerBinary(): string | undefined {
  const binary = process.env.REDIS_SERVER ?? (process.env.CHECKOUT_TEST_NO_SYSTEM_SERVERS === '1' ? undefined : 'redis-server');
  if (binary === undefined) return undefined;
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return probe.error === undefined && probe.status === 0 ? binary : undefined;
}
const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;
const POLL_MS = 25;

/**
 * Starts `redis-server` daemonized on a free 127.0.0.1 port with a private temp dir, no persistence,
 * and waits until it answers PING. `args` are added to its command line (e.g. `--maxmemory 10mb`,
 * `--replicaof 127.0.0.1 <port>`). Fails with a clear message when redis-server is not installed.
 *
 * @example
 * let redis: RedisServer;
 * beforeAll(async () => { redis = await startRedis(); });
 * afterAll(() => redis.stop());
 */
export async function startRedis(options: { args?: readonly string[] } = {}): Promise<RedisServer> {
  const extra = options.args ?? [];
  const binary = redisServerBinary();
  if (binary === undefined) {
    throw new Error(
      'redis-server is required by the Redis tests but was not found. Install it (Debian/Ubuntu: ' +
        '`apt-get install -y redis-server`) or point REDIS_SERVER at the binary.',
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'checkout-sdk-redis-'));
  const pidfile = join(dir, 'redis.pid');
  let port = 0;
  let lastError: unknown;
  for (let attempt = 0; attempt < 5 && port === 0; attempt++) {
    const candidate = await freePort();
    try {
      await launch(binary, candidate, dir, pidfile, extra);
      port = candidate;
    } catch (error) {
      lastError = error; // the port was taken between probing and binding: try another
    }
  }
  if (port === 0) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`redis-server did not start: ${String(lastError)}`);
  }
  let stopped = false;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await kill(pidfile);
      await rm(dir, { recursive: true, force: true });
    },
    async restart() {
      if (!stopped) await kill(pidfile);
      await mkdir(dir, { recursive: true });
      await launch(binary, port, dir, pidfile, extra);
      stopped = false;
    },
  };
}

async function launch(binary: string, port: number, dir: string, pidfile: string, extra: readonly string[]): Promise<void> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--daemonize',
    'yes',
    '--pidfile',
    pidfile,
    '--dir',
    dir,
    '--logfile',
    join(dir, 'redis.log'),
    '--save',
    '',
    '--appendonly',
    'no',
    ...extra,
  ];
  const run = spawnSync(binary, args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`redis-server exited with ${run.status}: ${run.stderr || run.stdout}`);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await pings(port)) return;
    await sleep(POLL_MS);
  }
  const log = await readFile(join(dir, 'redis.log'), 'utf8').catch(() => '');
  await kill(pidfile).catch(() => undefined);
  throw new Error(`redis-server on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms\n${log.slice(-2000)}`);
}

/** Kills the server by the pid in its pidfile (TERM, then KILL) and waits until the process is gone. */
async function kill(pidfile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let pid: number | undefined;
  while (pid === undefined && Date.now() < deadline) {
    const text = await readFile(pidfile, 'utf8').catch(() => '');
    const parsed = Number.parseInt(text.trim(), 10);
    if (parsed > 0) pid = parsed;
    else await sleep(POLL_MS);
  }
  if (pid === undefined) throw new Error(`no pid in ${pidfile}`);
  signal(pid, 'SIGTERM');
  const termDeadline = Date.now() + STOP_TIMEOUT_MS;
  while (alive(pid)) {
    if (Date.now() > termDeadline) {
      signal(pid, 'SIGKILL');
      if (Date.now() > termDeadline + STOP_TIMEOUT_MS) throw new Error(`redis-server ${pid} did not exit`);
    }
    await sleep(POLL_MS);
  }
  await rm(pidfile, { force: true });
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a server on `port` answers `PING` with `+PONG` (raw RESP, no client library). */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.once('connect', () => socket.write('PING\r\n'));
  });
}
