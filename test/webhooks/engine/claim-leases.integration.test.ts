import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import { RedisEventStore } from 'checkout-partner-sdk/redis';
import { createWebhookHandler, type EventStore } from 'checkout-partner-sdk/webhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { usePostgres } from '../../helpers/postgres-pool.js';
import { startRedis, type RedisServer } from '../../helpers/redis-server.js';
import { delivery, makeClient, SECRET } from '../helpers.js';

// A worker killed (SIGKILL) with a delivery in hand: its claim frees within one short lease (it is
// no longer renewed), so another worker handles the provider's redelivery within 20 s; restarted
// under the same owner it takes the claim back at once. Each worker is a real child process.

const ROOT = join(import.meta.dirname, '..', '..', '..');
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'claim-worker.ts');

/** A worker process (test/webhooks/fixtures/claim-worker.ts) and what it printed. */
interface Worker {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly port: number;
  /** Resolves once the worker printed `line` (bounded: rejects after 15 s). */
  printed(line: string): Promise<void>;
  kill(): Promise<void>;
}

const workers = new Set<Worker>();

async function startWorker(env: Record<string, string>): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: { ...process.env, TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'), SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const printed = async (line: string): Promise<void> => {
    for (let waited = 0; waited < 15_000; waited += 25) {
      if (stdout.split('\n').includes(line)) return;
      if (child.exitCode !== null) break;
      await sleep(25);
    }
    throw new Error(`the worker did not print ${JSON.stringify(line)}; stdout: ${stdout}; stderr: ${stderr}`);
  };
  const exited = once(child, 'exit');
  const listening = async (): Promise<number> => {
    for (let waited = 0; waited < 30_000; waited += 25) {
      const port = /^LISTENING (\d+)$/m.exec(stdout)?.[1];
      if (port !== undefined) return Number(port);
      if (child.exitCode !== null) break;
      await sleep(25);
    }
    throw new Error(`the worker did not start; stdout: ${stdout}; stderr: ${stderr}`);
  };
  const worker: Worker = {
    child,
    port: 0,
    printed,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  workers.add(worker);
  return { ...worker, port: await listening() };
}

afterEach(async () => {
  await Promise.all([...workers].map((worker) => worker.kill()));
  workers.clear();
});

/** Delivers `event` to a worker process over HTTP; a delivery cut off by the worker's death resolves `undefined`. */
async function post(worker: Worker, event: object): Promise<Response | undefined> {
  return fetch(await delivery(event, { url: `http://127.0.0.1:${worker.port}/webhooks` })).catch(() => undefined);
}

/** A worker in this process on `store`, recording the events it handles. */
function inProcessWorker(store: EventStore, owner: string) {
  const handled: string[] = [];
  const handler = createWebhookHandler({
    secret: SECRET,
    client: makeClient(),
    store,
    owner,
    logger: false,
    onEvent: ({ event }) => {
      handled.push(event.eventId);
    },
  });
  return { handler, handled };
}

/**
 * A long onEvent on a shared store keeps its claim: a short lease (1.2 s, renewed every 400 ms)
 * outlived several times over, every redelivery meanwhile 409 with the seconds left as Retry-After.
 */
async function longOnEventKeepsItsClaim(store: () => EventStore): Promise<void> {
  const event = { eventId: `evt-long-${randomUUID()}`, type: 'pix.deposit.created' };
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let started = false;
  const options = { secret: SECRET, client: makeClient(), logger: false as const, leaseMs: 1_200, responseTimeoutMs: 500 };
  const slow = createWebhookHandler({
    ...options,
    store: store(),
    onEvent: async () => {
      started = true;
      await finished;
    },
  });
  const other = inProcessWorker(store(), 'worker-b');
  const answered = slow.handle(await delivery(event));
  for (let waited = 0; !started && waited < 10_000; waited += 10) await sleep(10);
  expect(started).toBe(true);
  for (let check = 0; check < 4; check++) {
    await sleep(1_000); // 4 s in all: more than three leases
    const redelivery = await other.handler.handle(await delivery(event));
    expect(redelivery.status).toBe(409);
    expect(['1', '2']).toContain(redelivery.headers.get('retry-after')); // at most 1.2 s left, rounded up
  }
  finish();
  expect((await answered).status).toBe(503); // answered at responseTimeoutMs, then completed
  const after = await redeliverUntilHandled(other.handler, event, 5);
  expect(after.at(-1)?.status).toBe(200);
  expect(other.handled).toEqual([]); // a duplicate: the slow worker completed it
}

/** Redelivers `event` to `handler` once a second, as a provider retries, until it is answered 200 (at most `limit`). */
async function redeliverUntilHandled(handler: { handle(request: Request): Promise<Response> }, event: object, limit = 25) {
  const answers: Response[] = [];
  for (let attempt = 0; attempt < limit; attempt++) {
    const answer = await handler.handle(await delivery(event));
    answers.push(answer);
    if (answer.status === 200) break;
    await sleep(1_000);
  }
  return answers;
}

describe('claims on RedisEventStore', () => {
  let redis: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  it('keeps the claim of a long onEvent by renewing it, with Retry-After on every 409', async () => {
    const prefix = `long-${randomUUID()}:`;
    await longOnEventKeepsItsClaim(() => new RedisEventStore({ client, prefix }));
  }, 30_000);

  it('another worker handles the redelivery within 20 s of the kill; meanwhile 409 with Retry-After', async () => {
    const prefix = `killed-${randomUUID()}:`;
    const event = { eventId: 'evt-killed', type: 'pix.deposit.created' };
    const dying = await startWorker({ REDIS_URL: redis.url, PREFIX: prefix, OWNER: 'worker-a', HANG: '1' });
    void post(dying, event);
    await dying.printed('ONEVENT evt-killed');
    await dying.kill();
    const killedAt = performance.now();

    const other = inProcessWorker(new RedisEventStore({ client, prefix }), 'worker-b');
    const answers = await redeliverUntilHandled(other.handler, event);
    const elapsedMs = performance.now() - killedAt;
    expect(answers[0]?.status).toBe(409); // the dead worker's claim still held at first
    const retryAfter = Number(answers[0]?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(15); // the short lease, not 60 s
    expect(answers.at(-1)?.status).toBe(200);
    expect(elapsedMs).toBeLessThan(20_000);
    expect(other.handled).toEqual(['evt-killed']);
  }, 60_000);

  it('a worker restarted under the same owner handles the redelivery at once', async () => {
    const prefix = `restarted-${randomUUID()}:`;
    const event = { eventId: 'evt-restarted', type: 'pix.deposit.created' };
    const dying = await startWorker({ REDIS_URL: redis.url, PREFIX: prefix, OWNER: 'worker-a', HANG: '1' });
    void post(dying, event);
    await dying.printed('ONEVENT evt-restarted');
    await dying.kill();

    const restarted = await startWorker({ REDIS_URL: redis.url, PREFIX: prefix, OWNER: 'worker-a' });
    // the claim still holds for any other owner
    const other = inProcessWorker(new RedisEventStore({ client, prefix }), 'worker-b');
    expect((await other.handler.handle(await delivery(event))).status).toBe(409);
    const answer = await post(restarted, event);
    expect(answer?.status).toBe(200);
    await restarted.printed('HANDLED evt-restarted');
    expect((await other.handler.handle(await delivery(event))).status).toBe(200); // done: a duplicate
    expect(other.handled).toEqual([]);
  }, 60_000);
});

describe('claims on PostgresEventStore', () => {
  const db = usePostgres();

  it('keeps the claim of a long onEvent by renewing it in plain mode, with Retry-After on every 409', async () => {
    const table = `long_${randomUUID().replaceAll('-', '')}`;
    await new PostgresEventStore({ pool: db.pool, table }).ensureSchema();
    await longOnEventKeepsItsClaim(() => new PostgresEventStore({ pool: db.pool, table }));
  }, 30_000);

  it('a worker restarted under the same owner takes back its plain-mode claim at once', async () => {
    const table = `restarted_${randomUUID().replaceAll('-', '')}`;
    const store = new PostgresEventStore({ pool: db.pool, table });
    await store.ensureSchema();
    const event = { eventId: 'evt-restarted-pg', type: 'pix.deposit.created' };
    const dying = await startWorker({ PG_URL: db.server.url, TABLE: table, PLAIN: '1', OWNER: 'worker-a', HANG: '1' });
    void post(dying, event);
    await dying.printed('ONEVENT evt-restarted-pg');
    await dying.kill();

    const restarted = await startWorker({ PG_URL: db.server.url, TABLE: table, PLAIN: '1', OWNER: 'worker-a' });
    const other = inProcessWorker(store, 'worker-b');
    const held = await other.handler.handle(await delivery(event));
    expect(held.status).toBe(409); // the dead worker's lease still holds for any other owner
    expect(Number(held.headers.get('retry-after'))).toBeLessThanOrEqual(15);
    expect((await post(restarted, event))?.status).toBe(200);
    await restarted.printed('HANDLED evt-restarted-pg');
    expect((await other.handler.handle(await delivery(event))).status).toBe(200);
    expect(other.handled).toEqual([]);
  }, 60_000);

  it("ends the worker's transaction with its connection: another worker handles the redelivery at once", async () => {
    const table = `killed_${randomUUID().replaceAll('-', '')}`;
    const store = new PostgresEventStore({ pool: db.pool, table, transactional: true });
    await store.ensureSchema();
    const event = { eventId: 'evt-killed-tx', type: 'pix.deposit.created' };
    const dying = await startWorker({ PG_URL: db.server.url, TABLE: table, HANG: '1' });
    void post(dying, event);
    await dying.printed('ONEVENT evt-killed-tx');
    // while the worker lives its transaction holds the event
    const other = inProcessWorker(store, 'worker-b');
    const held = await other.handler.handle(await delivery(event));
    expect(held.status).toBe(409);
    expect(held.headers.get('retry-after')).toBe('60'); // no lease end is recorded: the transaction's bound, leaseMs
    await dying.kill();
    const killedAt = performance.now();

    const answers = await redeliverUntilHandled(other.handler, event);
    expect(answers.at(-1)?.status).toBe(200);
    expect(performance.now() - killedAt).toBeLessThan(5_000);
    expect(other.handled).toEqual(['evt-killed-tx']);
  }, 60_000);
});
