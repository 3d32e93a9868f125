import pg from 'pg';
import { PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { createStatusTracker, type StatusTracker } from 'checkout-partner-sdk/tracker';
import type { StatusReader } from 'checkout-partner-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { usePostgres } from '../helpers/postgres-pool.js';

// A read's key (an order's tradeId) is written once per record: a record whose claim shows it
// already holds the key sends no statement for it, in a restarted process too.

const database = usePostgres({ max: 2 });
let tables = 0;
const uniqueTable = (): string => `found_keys_${process.pid}_${++tables}`;
const trackers: StatusTracker[] = [];
afterEach(async () => {
  await Promise.all(trackers.splice(0).map((tracker) => tracker.drain({ timeoutMs: 3_000 })));
});

/** A pg pool whose statements (on the clients it checks out) are counted by their text. */
function countedPool() {
  const pool = new pg.Pool({ connectionString: database.server.url, max: 4 });
  pool.on('error', () => undefined);
  const sent: string[] = [];
  const connect = pool.connect.bind(pool);
  const patched = new WeakSet<object>();
  pool.connect = (async () => {
    const client = await connect();
    if (!patched.has(client)) {
      patched.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = (...args: unknown[]) => {
        if (typeof args[0] === 'string') sent.push(args[0]);
        return query(...args);
      };
    }
    return client;
  }) as typeof pool.connect;
  const keyWrites = () => sent.filter((text) => text.includes('SET found_key')).length;
  return { pool, sent, keyWrites };
}

describe('PostgresStatusStore.rememberKey after claimDue', () => {
  it('sends nothing for the key the claimed row holds, and writes a new one', async () => {
    const { pool, keyWrites } = countedPool();
    try {
      const store = new PostgresStatusStore({ pool, table: uniqueTable() });
      await store.ensureSchema();
      await store.watch('order', 'o-1');
      await store.rememberKey('order', 'o-1', 'tradeId:t-1');
      expect(keyWrites()).toBe(1);
      const [claimed] = await store.claimDue({ limit: 1, leaseMs: 10_000, owner: 'a' });
      expect(claimed?.externalId).toBe('o-1');
      await store.rememberKey('order', 'o-1', 'tradeId:t-1');
      expect(keyWrites()).toBe(1); // the claim showed it: nothing sent
      await store.rememberKey('order', 'o-1', 'tradeId:t-2');
      expect(keyWrites()).toBe(2); // another key is written
      expect(await store.findByKey('order', 'tradeId:t-2')).toBe('o-1');
      expect(await store.findByKey('order', 'tradeId:t-1')).toBeUndefined();
      // a record this store has not claimed is written as before
      await store.watch('order', 'o-2');
      await store.rememberKey('order', 'o-2', 'tradeId:t-3');
      expect(keyWrites()).toBe(3);
      expect(await store.findByKey('order', 'tradeId:t-3')).toBe('o-2');
    } finally {
      await pool.end();
    }
  });

  it('a restarted tracker reads every record again without writing its key again', async () => {
    const table = uniqueTable();
    const reads = new Map<string, number>();
    const reader: StatusReader = {
      getOrderByExternalId: async (externalId) => {
        reads.set(externalId, (reads.get(externalId) ?? 0) + 1);
        return { externalId, currency: 'USDT', settlement: { status: 'Pending', tradeId: `t-${externalId}` } };
      },
      getWithdrawalByExternalId: () => Promise.reject(new Error('unused')),
    };
    const ids = Array.from({ length: 20 }, (_, i) => `o-${i}`);
    const run = async (readsEach: number) => {
      const counted = countedPool();
      const store = new PostgresStatusStore({ pool: counted.pool, table, transactional: true });
      await store.ensureSchema();
      const tracker = createStatusTracker({
        client: reader,
        store,
        claimIntervalMs: 10,
        schedule: { fastIntervalMs: 20, jitter: 0 },
        logger: false,
        onChange: () => undefined,
      });
      trackers.push(tracker);
      tracker.start();
      for (const id of ids) await tracker.watchOrder(id);
      expect(await eventually(() => ids.every((id) => (reads.get(id) ?? 0) >= readsEach), 15_000)).toBe(true);
      await tracker.drain({ timeoutMs: 3_000 });
      await counted.pool.end();
      return counted.keyWrites();
    };
    expect(await run(2)).toBe(ids.length); // the first process writes each key once
    for (const id of ids)
      expect(await new PostgresStatusStore({ pool: database.pool, table }).findByKey('order', `tradeId:t-${id}`)).toBe(id);
    expect(await run(4)).toBe(0); // a new process: every claim shows the key, nothing is written
  });
});
