import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutError } from 'checkout-partner-sdk';
import { RedisEventStore, RedisStoreError } from 'checkout-partner-sdk/redis';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { flavours, type Connection } from './clients.js';
import type { ClaimResult } from 'checkout-partner-sdk/stores';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventStoreContract } from '../stores/event-store-contract.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(() => server?.stop());

/** What a store call rejected with (fails the test when it resolved or threw something else). */
async function rejectionOf(call: Promise<unknown>): Promise<RedisStoreError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RedisStoreError);
  expect((error as Error).name).toBe('RedisStoreError');
  return error as RedisStoreError;
}

let prefixes = 0;
/** A prefix of the test's own, so tests never see each other's keys. */
const uniquePrefix = () => `evt-test-${++prefixes}:`;

/** The lease of a claim that must have been taken. */
function leaseOf(result: ClaimResult): unknown {
  if (typeof result !== 'object') throw new Error(`expected a claim, got ${result}`);
  return result.lease;
}

describe.each(flavours)('RedisEventStore with $name', (flavour) => {
  let one: Connection;
  let two: Connection;
  beforeAll(async () => {
    one = await flavour.connect(server.url);
    two = await flavour.connect(server.url);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  /** Two stores on separate connections sharing one prefix: two workers of a fleet. */
  const pair = (options: { ttlSeconds?: number } = {}) => {
    const prefix = uniquePrefix();
    return {
      prefix,
      a: new RedisEventStore({ client: one.client, prefix, ...options }),
      b: new RedisEventStore({ client: two.client, prefix, ...options }),
    };
  };

  describe('the EventStore contract', () => {
    // two workers on two connections; the store's clock is the server's: time passes for real
    eventStoreContract(() => {
      const { a, b } = pair();
      return { a, b, advance: (ms) => sleep(ms) };
    });
  });

  it("rejects complete over another worker's claim with RedisStoreError (operation 'complete'), leaving it alone", async () => {
    const { a, b, prefix } = pair();
    const old = leaseOf(await a.claim('e-4', 60_000));
    await one.raw('DEL', `${prefix}e-4`); // what the lease's expiry does, without waiting for it
    leaseOf(await b.claim('e-4', 60_000));
    const bLease = await one.raw('GET', `${prefix}e-4`);
    const error = await rejectionOf(a.complete('e-4', old));
    expect(error.operation).toBe('complete');
    expect(error.message).toMatch(/lease .*passed.*another worker claimed/);
    expect(await one.raw('GET', `${prefix}e-4`)).toBe(bLease);
  });

  it('keys every event under the prefix, leases with PX leaseMs and done with EX ttlSeconds', async () => {
    const { a, prefix } = pair({ ttlSeconds: 3600 });
    const lease = leaseOf(await a.claim('order:42/settled', 30_000));
    expect(await one.raw('KEYS', `${prefix}*`)).toEqual([`${prefix}order:42/settled`]);
    const pttl = Number(await one.raw('PTTL', `${prefix}order:42/settled`));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(30_000);
    await a.complete('order:42/settled', lease);
    const ttl = Number(await one.raw('TTL', `${prefix}order:42/settled`));
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
  });

  it('completes with the longest ttlSeconds it accepts (Number.MAX_SAFE_INTEGER): Redis takes that EX', async () => {
    const { a } = pair({ ttlSeconds: Number.MAX_SAFE_INTEGER });
    const lease = leaseOf(await a.claim('e-forever', 60_000));
    await expect(a.complete('e-forever', lease)).resolves.toBeUndefined();
    await expect(a.claim('e-forever', 60_000)).resolves.toBe('done');
  });

  it('uses the documented default prefix and a 7-day ttl', async () => {
    const store = new RedisEventStore({ client: one.client });
    const id = `default-${crypto.randomUUID()}`;
    expect(store.prefix).toBe('checkout-partner-sdk:event:');
    expect(store.ttlSeconds).toBe(604_800);
    await store.complete(id, leaseOf(await store.claim(id, 10_000)));
    const ttl = Number(await one.raw('TTL', `checkout-partner-sdk:event:${id}`));
    expect(ttl).toBeGreaterThan(604_000);
    await one.raw('DEL', `checkout-partner-sdk:event:${id}`);
  });

  it('rejects complete (RedisStoreError) over a value it did not write, and leaves the value alone', async () => {
    const { a, prefix } = pair();
    await one.raw('SET', `${prefix}e-foreign`, 'something');
    const error = await rejectionOf(a.complete('e-foreign', 'lease:00000000-0000-4000-8000-000000000000'));
    expect(error.operation).toBe('complete');
    expect(error.message).not.toContain('something');
    expect(await one.raw('GET', `${prefix}e-foreign`)).toBe('something');
  });

  it('keys long ids by their SHA-256 and keeps ids that share a long head apart', async () => {
    const { a, b, prefix } = pair();
    const head = 'x'.repeat(5_000);
    const lease = leaseOf(await a.claim(`${head}-1`, 60_000));
    await expect(b.claim(`${head}-1`, 60_000)).resolves.toBe('in-flight');
    await expect(b.claim(`${head}-2`, 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await a.complete(`${head}-1`, lease);
    await expect(b.claim(`${head}-1`, 60_000)).resolves.toBe('done');
    const keys = (await one.raw('KEYS', `${prefix}*`)) as string[];
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(new RegExp(`^${prefix}sha256:[0-9a-f]{64}$`));
    // 200 UTF-8 bytes is the last length kept as it is
    const exact = 'é'.repeat(100);
    await a.claim(exact, 60_000);
    expect(await one.raw('EXISTS', `${prefix}${exact}`)).toBe(1);
  });

  it('never takes a literal id that looks like a hashed one for the long id it names', async () => {
    const { a, b, prefix } = pair();
    const long = 'x'.repeat(300);
    const digest = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(long))).toString('hex');
    await a.complete(long, leaseOf(await a.claim(long, 60_000)));
    // an attacker-chosen (or just unlucky) id spelling the long id's key is a new event
    await expect(b.claim(`sha256:${digest}`, 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await expect(b.claim(long, 60_000)).resolves.toBe('done');
    // the other way round too: the literal one done first does not answer for the long one
    const other = 'y'.repeat(300);
    const otherDigest = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(other))).toString('hex');
    await a.complete(`sha256:${otherDigest}`, leaseOf(await a.claim(`sha256:${otherDigest}`, 60_000)));
    await expect(b.claim(other, 60_000)).resolves.toMatchObject({ status: 'claimed' });
    // an ordinary id keeps the key it always had, so dedupe survives an upgrade
    await a.claim('evt_ordinary-1', 60_000);
    expect(await one.raw('EXISTS', `${prefix}evt_ordinary-1`)).toBe(1);
    const nul = 'evt\u0000nul';
    await a.claim(nul, 60_000);
    expect(await one.raw('EXISTS', `${prefix}${nul}`)).toBe(1);
  });

  it('loads its scripts again when Redis lost them (SCRIPT FLUSH)', async () => {
    const { a } = pair();
    await a.claim('e-8', 60_000);
    await one.raw('SCRIPT', 'FLUSH');
    await a.complete('e-9', leaseOf(await a.claim('e-9', 60_000)));
    await expect(a.claim('e-9', 60_000)).resolves.toBe('done');
  });

  it('rejects a store error as RedisStoreError when Redis answers with an error', async () => {
    const { a, prefix } = pair();
    await one.raw('HSET', `${prefix}e-hash`, 'field', 'value'); // a key of the wrong type
    await one.raw('SET', `${prefix}e-str`, 'something');
    const error = await a.claim('e-hash', 60_000).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RedisStoreError);
    expect(error).toBeInstanceOf(CheckoutError);
    expect((error as RedisStoreError).name).toBe('RedisStoreError');
    expect((error as RedisStoreError).operation).toBe('claim');
    expect((error as RedisStoreError).message).toMatch(/WRONGTYPE/);
    expect((error as RedisStoreError).cause).toBeInstanceOf(Error);
    await expect(a.claim('e-str', 60_000)).resolves.toBe('in-flight'); // a foreign value is never "done"
  });
});

describe('RedisEventStore arguments', () => {
  const client = { call: async () => 'OK' };

  it('rejects a client that is neither ioredis nor node-redis, naming what it expects', () => {
    for (const bad of [undefined, null, {}, 'redis://127.0.0.1', { get() {}, set() {} }]) {
      expect(() => new RedisEventStore({ client: bad as never })).toThrow(TypeError);
      expect(() => new RedisEventStore({ client: bad as never })).toThrow(/ioredis.*node-redis/);
    }
    expect(() => new RedisEventStore({ client: { sendCommand() {}, getSlotMaster() {} } as never })).toThrow(/cluster/);
    expect(() => new RedisEventStore(undefined as never)).toThrow(TypeError);
  });

  it('rejects bad options', () => {
    expect(() => new RedisEventStore({ client, prefix: 5 as never })).toThrow(/prefix/);
    for (const ttlSeconds of [0, -1, 1.5, Number.NaN, Infinity]) {
      expect(() => new RedisEventStore({ client, ttlSeconds })).toThrow(/ttlSeconds/);
    }
    for (const commandTimeoutMs of [0, -1, Number.NaN]) {
      expect(() => new RedisEventStore({ client, commandTimeoutMs })).toThrow(/commandTimeoutMs/);
    }
  });

  it('refuses a commandTimeoutMs or ttlSeconds past what a timer or Redis can hold, instead of failing every command', async () => {
    // a timer over 2^31 - 1 ms fires at once: every command would "time out" the moment it is sent
    expect(() => new RedisEventStore({ client, commandTimeoutMs: 2_147_483_648 })).toThrow(/commandTimeoutMs must be at most 2147483647/);
    const answering = {
      call: (command: string) => new Promise((resolve) => setTimeout(() => resolve(command === 'EVALSHA' ? 'claimed' : null), 5)),
    };
    // (a stub answers no INFO: the eviction-policy check is off)
    const longest = new RedisEventStore({ client: answering, commandTimeoutMs: 2_147_483_647, allowEvictingServer: true });
    await expect(longest.claim('e-1', 1_000)).resolves.toMatchObject({ status: 'claimed' });
    // EX takes at most a 64-bit count of milliseconds: 1e20 s would have every complete refused after onEvent ran
    expect(() => new RedisEventStore({ client, ttlSeconds: 1e20 })).toThrow(/ttlSeconds/);
    expect(new RedisEventStore({ client, ttlSeconds: Number.MAX_SAFE_INTEGER }).ttlSeconds).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('rejects a bad event id or lease with a TypeError before any command', async () => {
    let calls = 0;
    const store = new RedisEventStore({ client: { call: async () => (calls++, 'claimed') } });
    await expect(store.claim('', 1000)).rejects.toThrow(TypeError);
    await expect(store.claim(42 as never, 1000)).rejects.toThrow(TypeError);
    for (const lease of [0, -5, Number.NaN, Infinity, '1000']) {
      await expect(store.claim('e', lease as never)).rejects.toThrow(/leaseMs/);
    }
    await expect(store.complete('', 'lease:x')).rejects.toThrow(TypeError);
    await expect(store.release(undefined as never, 'lease:x')).rejects.toThrow(TypeError);
    await expect(store.complete('e', 'not-a-lease')).rejects.toThrow(/lease must be the lease this store's claim returned/);
    await expect(store.release('e', null)).rejects.toThrow(/lease must be the lease this store's claim returned/);
    expect(calls).toBe(0);
  });

  it('rejects a reply it does not understand with RedisStoreError', async () => {
    const store = new RedisEventStore({ client: { call: async () => 'OK' }, allowEvictingServer: true });
    await expect(store.claim('e', 1000)).rejects.toBeInstanceOf(RedisStoreError);
    await expect(store.complete('e', 'lease:x')).rejects.toThrow(/unexpected reply/);
    const legacy = new RedisEventStore({ client: { sendCommand: () => undefined } as never });
    await expect(legacy.claim('e', 1000)).rejects.toThrow(/legacyMode/);
  });
});
