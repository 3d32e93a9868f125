// A throwaway redis-server for the bench: a free loopback port, daemonized with a pidfile, no
// persistence; stopped by its pid.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** Starts redis-server, or returns `undefined` (with the reason) when it cannot. */
export async function startRedis() {
  if (!existsSync(REDIS_SERVER)) return { error: `${REDIS_SERVER} not found` };
  const dir = mkdtempSync(join(tmpdir(), 'cps-bench-redis-'));
  const pidfile = join(dir, 'redis.pid');
  const port = await freePort();
  const run = spawnSync(REDIS_SERVER, [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--daemonize',
    'yes',
    '--pidfile',
    pidfile,
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--logfile',
    join(dir, 'redis.log'),
  ]);
  if (run.status !== 0) return { error: `redis-server exited ${run.status}: ${run.stderr}` };
  // the pidfile appears once it is up
  const deadline = Date.now() + 5_000;
  while (!existsSync(pidfile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (!existsSync(pidfile)) return { error: 'redis-server did not write its pidfile within 5 s' };
  const pid = Number(readFileSync(pidfile, 'utf8').trim());
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid,
    async stop() {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const until = Date.now() + 5_000;
      while (Date.now() < until) {
        try {
          process.kill(pid, 0);
        } catch {
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
