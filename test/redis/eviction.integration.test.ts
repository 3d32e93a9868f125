import { RedisEventStore, RedisStatusStore, RedisStoreError, RedisTokenStore, type RedisClientLike } from 'checkout-partner-sdk/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { flavours, type Connection } from './clients.js';

/** One first use of each store, through `client` (the check runs before the first command). */
function firstUses(
  client: RedisClientLike,
  prefix: string,
  options: { allowEvictingServer?: boolean } = {},
): [string, () => Promise<unknown>][] {
  return [
    ['RedisEventStore', () => new RedisEventStore({ client, prefix: `${prefix}event:`, ...options }).claim('e-1', 10_000)],
    ['RedisTokenStore', () => new RedisTokenStore({ client, prefix: `${prefix}token:`, ...options }).get('partner-a')],
    ['RedisStatusStore', () => new RedisStatusStore({ client, prefix: `${prefix}status:`, ...options }).watch('order', 'o-1')],
  ];
}

async function rejection(call: Promise<unknown>): Promise<RedisStoreError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RedisStoreError);
  return error as RedisStoreError;
}

let prefixes = 0;

describe.each(flavours)('the eviction policy, with $name', (flavour) => {
  describe('a server that evicts (maxmemory 10mb, allkeys-lru)', () => {
    let server: RedisServer;
    let connection: Connection;
    beforeAll(async () => {
      server = await startRedis({ args: ['--maxmemory', '10mb', '--maxmemory-policy', 'allkeys-lru'] });
      connection = await flavour.connect(server.url);
    });
    afterAll(async () => {
      await connection?.close();
      await server?.stop();
    });

    it('is refused by every store at first use, with a RedisStoreError naming maxmemory-policy and what to do', async () => {
      for (const [name, use] of firstUses(connection.client, `refused-${++prefixes}:`)) {
        const error = await rejection(use());
        expect(error.message).toContain(`${name} refuses a server whose maxmemory-policy is allkeys-lru`);
        expect(error.message).toContain('maxmemory-policy noeviction');
        expect(error.message).toContain('a Redis of its own');
        expect(error.message).toContain('allowEvictingServer: true');
      }
      // nothing was written
      expect(await connection.raw('DBSIZE')).toBe(0);
    });

    it('volatile-* policies too: the keys of completed events and ended watches carry a TTL, what they evict', async () => {
      for (const policy of ['volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl', 'allkeys-lfu', 'allkeys-random']) {
        await connection.raw('CONFIG', 'SET', 'maxmemory-policy', policy);
        for (const [, use] of firstUses(connection.client, `volatile-${++prefixes}:`)) {
          expect((await rejection(use())).message).toContain(`maxmemory-policy is ${policy}`);
        }
      }
      await connection.raw('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
    });

    it('is used with allowEvictingServer: true, the risk accepted', async () => {
      for (const [, use] of firstUses(connection.client, `opted-out-${++prefixes}:`, { allowEvictingServer: true })) await use();
      expect(() => new RedisEventStore({ client: connection.client, allowEvictingServer: 'yes' as never })).toThrow(
        /allowEvictingServer must be a boolean/,
      );
    });

    it('a refused store checks again at its next use, and works once the server is fixed', async () => {
      const store = new RedisEventStore({ client: connection.client, prefix: `fixed-${++prefixes}:` });
      await rejection(store.claim('e-1', 10_000));
      await connection.raw('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
      try {
        expect(await store.claim('e-1', 10_000)).toMatchObject({ status: 'claimed' });
      } finally {
        await connection.raw('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
      }
    });
  });

  describe('a server whose INFO is disabled', () => {
    let server: RedisServer;
    let connection: Connection;
    beforeAll(async () => {
      server = await startRedis({ args: ['--rename-command', 'INFO', ''] });
      connection = await flavour.connect(server.url, { readyCheck: false });
    });
    afterAll(async () => {
      await connection?.close();
      await server?.stop();
    });

    it('is refused, saying the policy could not be read; the opt-out skips the check', async () => {
      for (const [name, use] of firstUses(connection.client, `no-info-${++prefixes}:`)) {
        const error = await rejection(use());
        expect(error.message).toContain(`${name} could not read the server's maxmemory-policy`);
        expect(error.message).toContain('allowEvictingServer: true');
      }
      for (const [, use] of firstUses(connection.client, `no-info-${++prefixes}:`, { allowEvictingServer: true })) await use();
    });
  });

  describe('a full noeviction server', () => {
    let server: RedisServer;
    let connection: Connection;
    beforeAll(async () => {
      server = await startRedis({ args: ['--maxmemory', '0', '--maxmemory-policy', 'noeviction'] });
      connection = await flavour.connect(server.url);
    });
    afterAll(async () => {
      await connection?.close();
      await server?.stop();
    });

    it('fails loudly while full (RedisStoreError, OOM) and recovers once memory is freed', async () => {
      const prefix = `full-${++prefixes}:`;
      const events = new RedisEventStore({ client: connection.client, prefix: `${prefix}event:` });
      const statuses = new RedisStatusStore({ client: connection.client, prefix: `${prefix}status:` });
      const tokens = new RedisTokenStore({ client: connection.client, prefix: `${prefix}token:` });
      // used once while there is room: the policy check passed
      await statuses.watch('order', 'o-0');
      await events.claim('e-0', 10_000);
      // the partner's own keys fill the server: 2 MB of them, then maxmemory just below what is used
      const filler = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 32; i += 1) await connection.raw('SET', `${prefix}junk:${i}`, filler);
      const used = Number(/used_memory:(\d+)/.exec(String(await connection.raw('INFO', 'memory')))?.[1]);
      expect(used).toBeGreaterThan(2_000_000);
      await connection.raw('CONFIG', 'SET', 'maxmemory', String(used - 200_000));
      await expect(connection.raw('SET', `${prefix}probe`, 'x')).rejects.toThrow(/OOM/);
      expect((await rejection(events.claim('e-1', 10_000))).message).toMatch(/OOM/);
      expect((await rejection(statuses.watch('order', 'o-1'))).message).toMatch(/OOM/);
      expect((await rejection(tokens.set('partner-a', { accessToken: 't', expiresAt: Date.now() + 60_000 }))).message).toMatch(/OOM/);
      // what was written is intact: nothing was evicted
      expect((await statuses.get('order', 'o-0'))?.watching).toBe(true);
      expect(await connection.raw('EXISTS', `${prefix}event:e-0`)).toBe(1);
      // memory freed: every store works again, with the same instances
      for (let i = 0; i < 32; i += 1) await connection.raw('DEL', `${prefix}junk:${i}`);
      expect(await events.claim('e-1', 10_000)).toMatchObject({ status: 'claimed' });
      await statuses.watch('order', 'o-1');
      expect(await statuses.countWatched()).toBe(2);
      await tokens.set('partner-a', { accessToken: 't', expiresAt: Date.now() + 60_000 });
      expect(await tokens.get('partner-a')).toMatchObject({ accessToken: 't' });
    });
  });
});
