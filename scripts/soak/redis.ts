/**
 * A real redis-server for the soak: daemonized on a free 127.0.0.1 port with the append-only file
 * on, in a private directory, stopped by the pid in its pidfile (never by name), restartable on
 * the same port and directory so its data survives the restart.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const BINARY = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

export interface SoakRedis {
  readonly port: number;
  readonly url: string;
  /** The pid of the running server, or undefined while stopped. */
  pid(): number | undefined;
  /** SIGTERM by pid (Redis then fsyncs its AOF), SIGKILL after 10 s; waits until the process is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and directory (the AOF is replayed). */
  start(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Starts redis-server in `dir` with `appendonly yes`. */
export async function startSoakRedis(dir: string): Promise<SoakRedis> {
  const probe = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`${BINARY} --version failed: ${probe.error?.message ?? probe.stderr}`);
  const port = await freePort();
  const pidfile = join(dir, 'redis.pid');
  let running: number | undefined;

  const start = async () => {
    const run = spawnSync(
      BINARY,
      [
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
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--save',
        '',
      ],
      { encoding: 'utf8', timeout: 10_000 },
    );
    if (run.status !== 0) throw new Error(`redis-server exited with ${run.status}: ${run.stderr || run.stdout}`);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (existsSync(pidfile) && (await ping(port))) {
        running = Number.parseInt(readFileSync(pidfile, 'utf8').trim(), 10);
        return;
      }
      await sleep(25);
    }
    throw new Error(`redis-server did not answer PING on ${port} within 10 s`);
  };

  const stop = async () => {
    const pid = running;
    if (pid === undefined) return;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (alive(pid)) {
      if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
      if (Date.now() > deadline + 5_000) throw new Error(`redis-server ${pid} did not exit`);
      await sleep(20);
    }
    running = undefined;
  };

  await start();
  return { port, url: `redis://127.0.0.1:${port}`, pid: () => running, stop, start };
}
