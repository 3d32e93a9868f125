import type { StatusReader } from 'checkout-partner-sdk';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { CheckoutClient, NotFoundError } from 'checkout-partner-sdk';
import { RedisStatusStore } from 'checkout-partner-sdk/redis';
import { createFakeCheckout, playTimeline } from 'checkout-partner-sdk/testing';
import { createStatusTracker, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { stepWallClock } from '../helpers/wall-clock.js';
import { recorder } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HOUR = 3_600_000;
const MINUTES_5 = 5 * 60_000;
const SCHEDULE = { fastIntervalMs: 40, fastForMs: 600_000, maxIntervalMs: 1_000, retryDelayMs: 40, jitter: 0.2 };

let server: RedisServer;
let redis: Redis;
beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

let prefixes = 0;
const trackers: StatusTracker[] = [];
afterEach(async () => {
  await Promise.all(trackers.splice(0).map((tracker) => tracker.drain({ timeoutMs: 3_000 })));
});

/** `eventually`, on the monotonic clock: these tests step `Date`. Bounded. */
async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

/** A service of orders in memory with no clock of its own; `reads` counts reads by externalId. */
function orders() {
  const records = new Map<string, string>();
  const reads = new Map<string, number>();
  const client: StatusReader = {
    getOrderByExternalId: async (externalId) => {
      reads.set(externalId, (reads.get(externalId) ?? 0) + 1);
      const status = records.get(externalId);
      if (status === undefined) throw new NotFoundError(`order ${externalId} not found`, { status: 404 });
      return { externalId, currency: 'BRZ', settlement: { status, tradeId: null } };
    },
    getWithdrawalByExternalId: () => Promise.reject(new Error('unused')),
  };
  return { records, reads, client };
}

describe('RedisStatusStore, one clock: the wall clock stepped ±1 hour mid-lease in this process', () => {
  it.each([
    ['forward 1 hour', HOUR],
    ['back 1 hour', -HOUR],
  ])(
    'stepped %s while onChange runs, two trackers sharing the store: the change is handed over once, polling keeps its pace',
    async (_, step) => {
      const { records, reads, client } = orders();
      const seen = recorder();
      const store = new RedisStatusStore({ client: redis, prefix: `clock-step-${++prefixes}:` });
      const clock = stepWallClock();
      let running = 0;
      let overlapped = false;
      records.set('brz-1', 'Pending');
      try {
        const make = (owner: string) =>
          createStatusTracker({
            client,
            store,
            owner,
            leaseMs: 3_000,
            claimIntervalMs: 10,
            schedule: { ...SCHEDULE, fastIntervalMs: 200 },
            logger: seen.logger,
            onChange: async (change) => {
              running += 1;
              if (running > 1) overlapped = true;
              // a 1.5 s onChange (half the lease), the wall clock stepping in the middle of it
              await new Promise((resolve) => setTimeout(resolve, 750));
              if (change.status === 'Pending') clock.step(step);
              await new Promise((resolve) => setTimeout(resolve, 750));
              running -= 1;
              seen.onChange(change);
            },
          });
        const two = [make('p0'), make('p1')];
        trackers.push(...two);
        for (const tracker of two) tracker.start();
        await two[0]!.watchOrder('brz-1');
        expect(await until(async () => seen.statuses('brz-1').length === 1, 10_000)).toBe(true);
        // past the step: the record is read on schedule (every 200 ms, ±20%), not an hour later
        const before = reads.get('brz-1') ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect((reads.get('brz-1') ?? 0) - before).toBeGreaterThanOrEqual(5);
        records.set('brz-1', 'Settled');
        expect(await until(async () => (await store.get('order', 'brz-1'))?.watching === false, 10_000)).toBe(true);
        expect(seen.statuses('brz-1')).toEqual(['Pending', 'Settled']);
        expect(overlapped).toBe(false);
        expect(seen.log.filter((entry) => entry.event === 'tracker.lease-lost' || entry.event === 'tracker.store-failed')).toEqual([]);
        // the times the store recorded are the server's, not the stepped wall clock's
        const handledAt = (await store.get('order', 'brz-1'))!.handled!.at;
        expect(Math.abs(handledAt - (Date.now() - step))).toBeLessThan(60_000);
      } finally {
        clock.restore();
      }
    },
    30_000,
  );
});

describe('RedisStatusStore, one clock: fleet members whose clocks are 5 minutes apart', () => {
  it.each([
    ['ahead', MINUTES_5],
    ['behind', -MINUTES_5],
  ])(
    'a process 5 minutes %s shares the records with this one: every change handed over once, in order',
    async (_, skew) => {
      const fake = createFakeCheckout({ partners: [{ partnerId: 'p-1', partnerSecret: 's-1', enabled: true, apiEnabled: true }] });
      const { url, close } = await fake.listen();
      const prefix = `clock-fleet-${++prefixes}:`;
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--import',
          join(ROOT, 'test/helpers/skewed-clock.mjs'),
          join(ROOT, 'test/tracker/fixtures/redis-tracker-child.ts'),
        ],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
            CLOCK_SKEW_MS: String(skew),
            REDIS_URL: server.url,
            PREFIX: prefix,
            BASE_URL: url,
            ONCHANGE_MS: '150',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = once(child, 'exit');
      try {
        expect(await until(async () => stdout.includes('NOW '), 20_000), stderr).toBe(true);
        const childNow = Number(/NOW (\d+)/.exec(stdout)![1]);
        // the premise: the child's wall clock is off by the skew (give or take its start-up)
        expect(Math.abs(childNow - Date.now() - skew)).toBeLessThan(30_000);

        const seen = recorder();
        const client = new CheckoutClient({ baseUrl: url, partnerId: 'p-1', partnerSecret: 's-1', maxRetries: 0 });
        const tracker = createStatusTracker({
          client,
          store: new RedisStatusStore({ client: redis, prefix }),
          owner: 'parent',
          leaseMs: 1_500,
          claimIntervalMs: 10,
          schedule: SCHEDULE,
          logger: seen.logger,
          onChange: async (change) => {
            await new Promise((resolve) => setTimeout(resolve, 150));
            seen.onChange(change);
          },
        });
        trackers.push(tracker);
        tracker.start();
        const ids = Array.from({ length: 24 }, (_, i) => `o-${i}`);
        const steps = [];
        for (const [i, id] of ids.entries()) {
          fake.setOrder({ externalId: id, currency: 'USDT', settlement: { status: 'Pending', tradeId: null } });
          steps.push({ atMs: 100 + i * 40, order: id, patch: { settlement: { status: 'Processing' } } });
          steps.push({ atMs: 900 + i * 40, order: id, patch: { settlement: { status: 'Settled' } } });
        }
        for (const id of ids) await tracker.watchOrder(id);
        const childChanges = () =>
          [...stdout.matchAll(/^CHANGE (\S+) (\S+) (\S+)$/gm)].map((m) => ({ externalId: m[1]!, status: m[2]!, previous: m[3]! }));
        const all = () => [
          ...seen.changes.map((c) => ({ externalId: c.externalId, status: String(c.status), previous: String(c.previousStatus) })),
          ...childChanges(),
        ];
        // the timeline starts once every record's first status was handed over: on a loaded machine the
        // first reads may take longer than the timeline's first step, and a record first seen Settled
        // says nothing about the clocks
        expect(await until(() => ids.every((id) => all().some((c) => c.externalId === id && c.status === 'Pending')), 20_000)).toBe(true);
        await playTimeline(fake, steps).done;
        const store = new RedisStatusStore({ client: redis, prefix });
        const settled = async () =>
          (await Promise.all(ids.map((id) => store.get('order', id)))).every((state) => state?.watching === false);
        expect(await until(settled, 20_000)).toBe(true);
        child.kill('SIGTERM');
        await exited;
        expect(stdout).toContain('DRAINED');
        const changes = all();
        for (const id of ids) {
          // the changes of one record, across both processes, form one chain (each handed over once,
          // each after the one before it): undefined → Pending → (Processing →) Settled
          const mine = changes.filter((c) => c.externalId === id);
          const chain: string[] = [];
          let previous = 'undefined';
          for (let link = 0; link < 3; link += 1) {
            const next = mine.filter((c) => c.previous === previous);
            if (next.length === 0) break;
            expect(next, `${id}: two changes after ${previous}`).toHaveLength(1);
            chain.push(next[0]!.status);
            previous = next[0]!.status;
          }
          expect(chain.length, `${id}: ${JSON.stringify(mine)}`).toBe(mine.length);
          expect(chain[0]).toBe('Pending');
          expect(chain.at(-1)).toBe('Settled');
        }
        // both processes took part: the skewed one was neither starved (behind) nor a thief (ahead)
        expect(childChanges().length).toBeGreaterThan(0);
        expect(seen.changes.length).toBeGreaterThan(0);
        expect(stdout).not.toContain('LOG lease-lost');
        expect(seen.log.filter((entry) => entry.event === 'tracker.lease-lost')).toEqual([]);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await close();
      }
    },
    60_000,
  );
});

describe('RedisStatusStore: a process restarted with the same owner takes back its leases at start', () => {
  it('a tracker SIGKILLed inside onChange, restarted with its owner: the change is handed over again long before its 30 s lease ends', async () => {
    const fake = createFakeCheckout({ partners: [{ partnerId: 'p-1', partnerSecret: 's-1', enabled: true, apiEnabled: true }] });
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
    const { url, close } = await fake.listen();
    const prefix = `clock-reclaim-${++prefixes}:`;
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/tracker/fixtures/redis-tracker-child.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
        REDIS_URL: server.url,
        PREFIX: prefix,
        BASE_URL: url,
        ONCHANGE_MS: '60000',
        OWNER: 'stable',
        LEASE_MS: '30000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit');
    try {
      expect(await until(async () => stdout.includes('NOW '), 20_000), stderr).toBe(true);
      const store = new RedisStatusStore({ client: redis, prefix });
      await store.watch('order', 'o-1');
      expect(await until(async () => stdout.includes('IN-ONCHANGE o-1'), 20_000), stderr).toBe(true);
      child.kill('SIGKILL');
      await exited;
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    try {
      const seen = recorder();
      const client = new CheckoutClient({ baseUrl: url, partnerId: 'p-1', partnerSecret: 's-1', maxRetries: 0 });
      const restarted = createStatusTracker({
        client,
        store: new RedisStatusStore({ client: redis, prefix }),
        owner: 'stable',
        leaseMs: 30_000,
        claimIntervalMs: 10,
        schedule: SCHEDULE,
        logger: seen.logger,
        onChange: seen.onChange,
      });
      trackers.push(restarted);
      restarted.start();
      // the dead life's lease would hold 30 s; reclaim(owner) at start makes the record due at once
      expect(await until(async () => seen.statuses('o-1').length > 0, 15_000)).toBe(true);
      expect(seen.statuses('o-1')).toEqual(['Settled']);
    } finally {
      await close();
    }
  }, 60_000);
});
