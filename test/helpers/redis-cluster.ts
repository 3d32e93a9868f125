import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { redisServerBinary, startRedis, type RedisServer } from './redis-server.js';

/** A Redis Cluster of a test's own: `masters` redis-servers on 127.0.0.1, no replicas. */
export interface RedisCluster {
  /** The masters' ports, in the order the slots were assigned (the first holds slot 0). */
  readonly ports: readonly number[];
  /** Stops every server by its pid and removes their temp dirs. Safe to call twice. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 20_000;
const POLL_MS = 100;

/**
 * Starts `masters` (≥ 3) `redis-server --cluster-enabled yes` on free 127.0.0.1 ports, joins them
 * with `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes` and waits until every node
 * reports `cluster_state:ok`. `redis-cli` is looked up beside redis-server, else on PATH.
 *
 * @example
 * let cluster: RedisCluster;
 * beforeAll(async () => { cluster = await startRedisCluster(); });
 * afterAll(() => cluster?.stop());
 */
export async function startRedisCluster(options: { masters?: number; args?: readonly string[] } = {}): Promise<RedisCluster> {
  const count = options.masters ?? 3;
  if (count < 3) throw new Error('redis-cli --cluster create needs at least 3 masters');
  const servers: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  };
  try {
    for (let i = 0; i < count; i += 1) {
      servers.push(
        await startRedis({
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            '5000',
            ...(options.args ?? []),
          ],
        }),
      );
    }
    const ports = servers.map((server) => server.port);
    const create = spawnSync(
      redisCli(),
      ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'],
      {
        encoding: 'utf8',
        timeout: READY_TIMEOUT_MS,
      },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed (${create.status}): ${create.stderr || create.stdout}`);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (const port of ports) {
      while (!cli(port, ['CLUSTER', 'INFO']).includes('cluster_state:ok')) {
        if (Date.now() > deadline)
          throw new Error(`the cluster node on ${port} did not reach cluster_state:ok within ${READY_TIMEOUT_MS} ms`);
        await sleep(POLL_MS);
      }
    }
    return { ports, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function cli(port: number, args: string[]): string {
  const run = spawnSync(redisCli(), ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8', timeout: 5_000 });
  return run.stdout ?? '';
}

function redisCli(): string {
  const server = redisServerBinary();
  if (server?.includes('/')) {
    const beside = join(dirname(server), 'redis-cli');
    if (spawnSync(beside, ['--version']).status === 0) return beside;
  }
  return 'redis-cli';
}
