import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { createEvent, createFakeCheckout, createProviderSimulator, playTimeline, type TimelineStep } from 'checkout-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';
import { usePostgres } from '../helpers/postgres-pool.js';
import { cleanup, PARTNER, run, SIGNING_SECRET, stopWithin, type SampleProcess } from './shutdown-samples.js';

// The outside-effects recipe (examples/tracker/pg-boss.ts, docs/outside-effects.md) as a fleet: two
// worker processes on one PostgreSQL, a lossy provider delivering to both, a warehouse whose answers
// get lost, and SIGKILLs landing inside onChange (its pg-boss INSERT held by a lock on the job
// table). Every paid order is shipped once.

const SAMPLE = 'examples/tracker/pg-boss.ts';
const ORDERS = 24;
const db = usePostgres({ max: 4 });

/** The warehouse API: performs a shipment once per Idempotency-Key and replays its answer; the answer to every third new key is lost. */
async function warehouse() {
  const shipped = new Map<string, number>();
  const keysOf = new Map<string, Set<string>>();
  const answers = new Map<string, string>();
  const counts = { requests: 0, replayed: 0, lost: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      counts.requests += 1;
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || key === '') return void res.writeHead(400).end('Idempotency-Key required');
      const stored = answers.get(key);
      if (stored !== undefined) {
        counts.replayed += 1;
        return void res.writeHead(201, { 'content-type': 'application/json' }).end(stored);
      }
      const { orderId } = JSON.parse(body) as { orderId: string };
      shipped.set(orderId, (shipped.get(orderId) ?? 0) + 1);
      keysOf.set(orderId, (keysOf.get(orderId) ?? new Set()).add(key));
      const answer = JSON.stringify({ shipment: `s-${orderId}` });
      answers.set(key, answer);
      if (answers.size % 3 === 0) {
        counts.lost += 1;
        return void res.socket?.destroy();
      }
      res.writeHead(201, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => void server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, shipped, keysOf, counts };
}

/** A seeded random source, so a failing run can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('the outside-effects recipe: pg-boss enqueued in the tracker transaction', () => {
  it('two workers, a lossy provider and SIGKILLs inside onChange: every order shipped once', { timeout: 240_000 }, async () => {
    const fake = createFakeCheckout({ partners: [PARTNER] });
    const ids = Array.from({ length: ORDERS }, (_, i) => `order-${i}`);
    for (const [i, id] of ids.entries())
      fake.setOrder({ externalId: id, currency: 'USDT', settlement: { status: 'Pending', tradeId: `t-${i}` } });
    const service = await fake.listen();
    cleanup.push(() => void service.close());
    const shop = await warehouse();

    const ports = [await freePort(), await freePort()];
    const envOf = (slot: number) => ({
      DATABASE_URL: db.server.url,
      CHECKOUT_BASE_URL: service.url,
      CHECKOUT_PARTNER_ID: PARTNER.partnerId,
      CHECKOUT_PARTNER_SECRET: PARTNER.partnerSecret,
      WEBHOOK_SIGNING_SECRET: SIGNING_SECRET,
      WAREHOUSE_URL: shop.url,
      PORT: String(ports[slot]),
      HOSTNAME: `worker-${slot}`,
      PGAPPNAME: `worker-${slot}`, // tells the test whose session waits inside onChange
    });
    const workers: SampleProcess[] = [];
    const start = async (slot: number) => {
      const worker = run(SAMPLE, envOf(slot));
      workers[slot] = worker;
      const up = await eventually(async () => {
        try {
          return (await fetch(`http://127.0.0.1:${ports[slot]}/webhooks`)).status === 405;
        } catch {
          return false;
        }
      }, 90_000);
      expect(up, worker.err()).toBe(true);
    };
    await Promise.all([start(0), start(1)]);

    // the web process's part: each order watched (a worker reads it Pending and learns its tradeId)
    const store = new PostgresStatusStore({ pool: db.pool, transactional: true });
    for (const id of ids) await store.watch('order', id);
    const handled = async (status: string) =>
      (await Promise.all(ids.map(async (id) => (await store.get('order', id))?.handled?.status))).filter((s) => s === status).length;
    expect(await eventually(async () => (await handled('Pending')) === ORDERS, 60_000)).toBe(true);

    /**
     * Holds every pg-boss INSERT, settles `order` and waits until a worker's onChange waits on it
     * (its session in the tracker's transaction), SIGKILLs that worker, lets the INSERTs go and
     * starts it again under its name. Resolves which worker it killed.
     */
    const killInsideOnChange = async (settle: () => void): Promise<number> => {
      const locker = await db.pool.connect();
      let slot: number;
      try {
        // locked with no job in hand, so the kill strands none (it would wait out expireInSeconds)
        for (let attempt = 0; ; attempt += 1) {
          await locker.query('BEGIN');
          await locker.query('LOCK TABLE pgboss.job IN EXCLUSIVE MODE');
          const { rows } = await locker.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE state = 'active'");
          if (rows[0]!.n === 0 || attempt === 200) break;
          await locker.query('ROLLBACK');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        settle();
        let waiting: string | undefined;
        const inside = await eventually(async () => {
          const { rows } = await db.pool.query<{ name: string }>(
            `SELECT application_name AS name FROM pg_stat_activity
             WHERE wait_event_type = 'Lock' AND backend_xid IS NOT NULL AND query ILIKE '%insert into%' AND application_name LIKE 'worker-%'`,
          );
          waiting = rows[0]?.name;
          return waiting !== undefined;
        }, 60_000);
        expect(inside, 'no onChange waited on its pg-boss INSERT').toBe(true);
        slot = Number(waiting!.slice('worker-'.length));
        const killed = workers[slot]!;
        killed.child.kill('SIGKILL');
        expect(await killed.exited).toEqual({ code: null, signal: 'SIGKILL' });
      } finally {
        await locker.query('ROLLBACK');
        locker.release();
      }
      await start(slot);
      return slot;
    };

    // first kill: order-0 settles, read by a poll (no event has come yet)
    const killed = [await killInsideOnChange(() => fake.updateOrder('order-0', { settlement: { status: 'Settled', tradeId: 't-0' } }))];

    // the rest settle over ~3 s, each announced through a provider that loses, duplicates and delays
    const provider = createProviderSimulator({
      url: ports.map((port) => `http://127.0.0.1:${port}/webhooks`),
      secret: SIGNING_SECRET,
      loss: 0.25,
      duplicates: 0.25,
      maxDelayMs: 1_000,
      random: seeded(46),
      delivery: { maxAttempts: 10, retryDelayMs: 100, maxRetryDelayMs: 1_000 },
    });
    const steps: TimelineStep[] = ids.slice(1).flatMap((id, i) => [
      { atMs: i * 120, order: id, patch: { settlement: { status: 'Settled', tradeId: `t-${i + 1}` } } },
      { atMs: i * 120, event: createEvent('otc.trade.settled', { tradeId: `t-${i + 1}` }) },
    ]);
    const timeline = playTimeline(fake, steps.slice(0, steps.length / 2), { provider });
    await timeline.done;
    // second kill, with the fleet busy: whichever worker's onChange waits on its INSERT
    killed.push(await killInsideOnChange(() => void playTimeline(fake, steps.slice(steps.length / 2), { provider })));

    const jobs = async () =>
      (
        await db.pool.query<{ order_id: string; id: string; state: string }>(
          "SELECT data->>'orderId' AS order_id, id::text, state FROM pgboss.job WHERE name = 'ship-order'",
        )
      ).rows;
    const done = await eventually(async () => {
      const all = await jobs();
      return (await handled('Settled')) === ORDERS && all.length === ORDERS && all.every((job) => job.state === 'completed');
    }, 150_000);
    expect(done, `shipped ${shop.shipped.size}/${ORDERS}; ${workers.map((w) => w.err()).join('\n')}`).toBe(true);
    await provider.settled();

    // once: one shipment per order, one key per order, that key the job's id (the change's id)
    const all = await jobs();
    for (const id of ids) {
      expect(shop.shipped.get(id), id).toBe(1);
      const [key, ...others] = [...(shop.keysOf.get(id) ?? [])];
      expect(others, id).toEqual([]);
      expect(all.filter((job) => job.order_id === id).map((job) => job.id)).toEqual([key]);
    }
    // the faults happened: answers lost and replayed under the same key, events lost, two kills
    expect(shop.counts.lost).toBeGreaterThan(0);
    expect(shop.counts.replayed).toBeGreaterThanOrEqual(shop.counts.lost);
    expect(provider.stats.lost).toBeGreaterThan(0);
    expect(killed).toHaveLength(2);

    provider.stop();
    for (const worker of workers) await stopWithin(worker);
  });
});
