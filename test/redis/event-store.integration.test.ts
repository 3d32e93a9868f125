import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutError } from 'checkout-partner-sdk';
import { RedisEventStore, RedisStoreError } from 'checkout-partner-sdk/redis';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { flavours, type Connection } from './clients.js';

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
const isClaimed = (result: unknown): boolean => typeof result === 'object' && result !== null && 'lease' in result;

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

  it('claims once, answers in-flight while leased, and done once completed', async () => {
    const { a, b } = pair();
    await expect(a.claim('e-1', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await expect(b.claim('e-1', 60_000)).resolves.toBe('in-flight');
    await expect(a.claim('e-1', 60_000)).resolves.toBe('in-flight'); // even for the holder
    await a.complete('e-1');
    await expect(b.claim('e-1', 60_000)).resolves.toBe('done');
    await expect(a.claim('e-1', 60_000)).resolves.toBe('done');
  });

  it('keys every event under the prefix, leases with PX leaseMs and done with EX ttlSeconds', async () => {
    const { a, prefix } = pair({ ttlSeconds: 3600 });
    await a.claim('order:42/settled', 30_000);
    expect(await one.raw('KEYS', `${prefix}*`)).toEqual([`${prefix}order:42/settled`]);
    const pttl = Number(await one.raw('PTTL', `${prefix}order:42/settled`));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(30_000);
    await a.complete('order:42/settled');
    const ttl = Number(await one.raw('TTL', `${prefix}order:42/settled`));
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
  });

  it('completes with the longest ttlSeconds it accepts (Number.MAX_SAFE_INTEGER): Redis takes that EX', async () => {
    const { a } = pair({ ttlSeconds: Number.MAX_SAFE_INTEGER });
    await a.claim('e-forever', 60_000);
    await expect(a.complete('e-forever')).resolves.toBeUndefined();
    await expect(a.claim('e-forever', 60_000)).resolves.toBe('done');
  });

  it('uses the documented default prefix and a 7-day ttl', async () => {
    const store = new RedisEventStore({ client: one.client });
    const id = `default-${crypto.randomUUID()}`;
    expect(store.prefix).toBe('checkout-partner-sdk:event:');
    expect(store.ttlSeconds).toBe(604_800);
    await store.claim(id, 10_000);
    await store.complete(id);
    const ttl = Number(await one.raw('TTL', `checkout-partner-sdk:event:${id}`));
    expect(ttl).toBeGreaterThan(604_000);
    await one.raw('DEL', `checkout-partner-sdk:event:${id}`);
  });

  it('lets a redelivery claim at once after release', async () => {
    const { a, b } = pair();
    await expect(a.claim('e-2', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await a.release('e-2');
    await expect(b.claim('e-2', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await expect(a.claim('e-2', 60_000)).resolves.toBe('in-flight');
  });

  it('makes an event claimable again once its lease expires in Redis', async () => {
    const { a, b } = pair();
    await expect(a.claim('e-3', 1_000)).resolves.toMatchObject({ status: 'claimed' }); // long enough that B surely sees it leased
    await expect(b.claim('e-3', 60_000)).resolves.toBe('in-flight');
    let result: unknown;
    const claimable = await eventually(async () => (result = await b.claim('e-3', 60_000)) !== 'in-flight');
    expect(claimable).toBe(true);
    expect(result).toMatchObject({ status: 'claimed' });
  });

  it("rejects an old owner's complete over the next claim with RedisStoreError, and ignores its release", async () => {
    const { a, b, prefix } = pair();
    await expect(a.claim('e-4', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await one.raw('DEL', `${prefix}e-4`); // what the lease's expiry does, without waiting for it
    await expect(b.claim('e-4', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    const bLease = await one.raw('GET', `${prefix}e-4`);

    await a.release('e-4'); // never throws: the handler releases on its failure paths
    const error = await rejectionOf(a.complete('e-4'));
    expect(error.operation).toBe('complete');
    expect(error.message).toMatch(/lease .*passed.*another worker claimed/);
    expect(await one.raw('GET', `${prefix}e-4`)).toBe(bLease);
    await expect(a.claim('e-4', 60_000)).resolves.toBe('in-flight');
    // a retry (the handler retries a failed complete) still rejects while B holds it
    await expect(a.complete('e-4')).rejects.toBeInstanceOf(RedisStoreError);

    await b.complete('e-4');
    await expect(a.claim('e-4', 60_000)).resolves.toBe('done');
    await expect(a.complete('e-4')).resolves.toBeUndefined(); // done already: nothing lost
  });

  it('marks done when the owner completes after its lease expired unclaimed (the work was done)', async () => {
    const { a, b, prefix } = pair();
    await expect(a.claim('e-5', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await one.raw('DEL', `${prefix}e-5`);
    await a.complete('e-5');
    await expect(b.claim('e-5', 60_000)).resolves.toBe('done');
  });

  it('ignores release by a store that holds no lease, and rejects its complete (RedisStoreError) while another store holds one', async () => {
    const { a, b, prefix } = pair();
    await expect(a.claim('e-6', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    const aLease = await one.raw('GET', `${prefix}e-6`);
    await expect(b.release('e-6')).resolves.toBeUndefined();
    expect((await rejectionOf(b.complete('e-6'))).operation).toBe('complete');
    expect(await one.raw('GET', `${prefix}e-6`)).toBe(aLease);
    await expect(b.claim('e-6', 60_000)).resolves.toBe('in-flight');
    await a.release('e-6');
    await expect(b.claim('e-6', 60_000)).resolves.toMatchObject({ status: 'claimed' });
  });

  it('rejects complete (RedisStoreError) over a value it did not write, and leaves the value alone', async () => {
    const { a, prefix } = pair();
    await one.raw('SET', `${prefix}e-foreign`, 'something');
    const error = await rejectionOf(a.complete('e-foreign'));
    expect(error.operation).toBe('complete');
    expect(error.message).not.toContain('something');
    expect(await one.raw('GET', `${prefix}e-foreign`)).toBe('something');
  });

  it('never forgets a live lease: completes its first claim after 10,000 more claims are still leased', async () => {
    const { a, b, prefix } = pair();
    await expect(a.claim('first', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    // more live leases than the old bound (10,000), which dropped the oldest one: "first"
    const ids = Array.from({ length: 10_000 }, (_, i) => `more-${i}`);
    for (let i = 0; i < ids.length; i += 500) {
      const results = await Promise.all(ids.slice(i, i + 500).map((id) => a.claim(id, 60_000)));
      expect(results.every(isClaimed)).toBe(true);
    }
    await a.complete('first');
    expect(await one.raw('GET', `${prefix}first`)).toBe('done');
    await expect(b.claim('first', 60_000)).resolves.toBe('done');
    // and the newest, and one in between, too
    await a.complete('more-9999');
    await a.release('more-5000');
    await expect(b.claim('more-9999', 60_000)).resolves.toBe('done');
    await expect(b.claim('more-5000', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    let cursor = '0';
    for (let i = 0; i < 1_000; i++) {
      // clean up, bounded
      const [next, keys] = (await one.raw('SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000')) as [string, string[]];
      if (keys.length > 0) await one.raw('DEL', ...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  });

  it('keeps a done event done when its late owner releases, and resolves its complete (done already)', async () => {
    const { a, b, prefix } = pair();
    await a.claim('e-7', 60_000);
    await one.raw('DEL', `${prefix}e-7`);
    await b.claim('e-7', 60_000);
    await b.complete('e-7');
    await a.release('e-7');
    await expect(a.complete('e-7')).resolves.toBeUndefined();
    expect(await one.raw('GET', `${prefix}e-7`)).toBe('done');
  });

  it('gives exactly one "claimed" among 50 concurrent claims over two connections', async () => {
    const { a, b } = pair();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).claim('e-race', 60_000)),
    );
    expect(results.filter(isClaimed)).toHaveLength(1);
    expect(results.filter((r) => r === 'in-flight')).toHaveLength(49);
  });

  it('gives exactly one "claimed" per event among concurrent claims of many events', async () => {
    const { a, b } = pair();
    const ids = Array.from({ length: 20 }, (_, i) => `many-${i}`);
    const results = await Promise.all(ids.flatMap((id) => [a.claim(id, 60_000), b.claim(id, 60_000), a.claim(id, 60_000)]));
    for (let i = 0; i < ids.length; i++) {
      expect(results.slice(i * 3, i * 3 + 3).filter(isClaimed)).toHaveLength(1);
    }
  });

  it('keys long ids by their SHA-256 and keeps ids that share a long head apart', async () => {
    const { a, b, prefix } = pair();
    const head = 'x'.repeat(5_000);
    await expect(a.claim(`${head}-1`, 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await expect(b.claim(`${head}-1`, 60_000)).resolves.toBe('in-flight');
    await expect(b.claim(`${head}-2`, 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await a.complete(`${head}-1`);
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
    await expect(a.claim(long, 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await a.complete(long);
    // an attacker-chosen (or just unlucky) id spelling the long id's key is a new event
    await expect(b.claim(`sha256:${digest}`, 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await expect(b.claim(long, 60_000)).resolves.toBe('done');
    // the other way round too: the literal one done first does not answer for the long one
    const other = 'y'.repeat(300);
    const otherDigest = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(other))).toString('hex');
    await a.claim(`sha256:${otherDigest}`, 60_000);
    await a.complete(`sha256:${otherDigest}`);
    await expect(b.claim(other, 60_000)).resolves.toMatchObject({ status: 'claimed' });
    // an ordinary id keeps the key it always had, so dedupe survives an upgrade
    await a.claim('evt_ordinary-1', 60_000);
    expect(await one.raw('EXISTS', `${prefix}evt_ordinary-1`)).toBe(1);
    const nul = 'evt\u0000nul';
    await a.claim(nul, 60_000);
    expect(await one.raw('EXISTS', `${prefix}${nul}`)).toBe(1);
  });

  it('accepts ids of any characters, lone surrogates included, without mixing them up', async () => {
    const { a, b } = pair();
    const ids = ['with space', 'new\nline', '*?[glob]', '💳 pix', '\uD800', '\uDC00', '\uFFFD', 'sha256:abc'];
    for (const id of ids) await expect(a.claim(id, 60_000)).resolves.toMatchObject({ status: 'claimed' });
    for (const id of ids) await expect(b.claim(id, 60_000)).resolves.toBe('in-flight');
  });

  it('loads its scripts again when Redis lost them (SCRIPT FLUSH)', async () => {
    const { a } = pair();
    await a.claim('e-8', 60_000);
    await one.raw('SCRIPT', 'FLUSH');
    await expect(a.claim('e-9', 60_000)).resolves.toMatchObject({ status: 'claimed' });
    await a.complete('e-9');
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
    expect(() => new RedisEventStore({ client: { sendCommand() {}, getSlotMaster() {} } as never })).toThrow(
      /cluster/,
    );
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
    const answering = { call: (command: string) => new Promise((resolve) => setTimeout(() => resolve(command === 'EVALSHA' ? 'claimed' : null), 5)) };
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
    await expect(store.complete('')).rejects.toThrow(TypeError);
    await expect(store.release(undefined as never)).rejects.toThrow(TypeError);
    expect(calls).toBe(0);
  });

  it('rejects a reply it does not understand with RedisStoreError', async () => {
    const store = new RedisEventStore({ client: { call: async () => 'OK' }, allowEvictingServer: true });
    await expect(store.claim('e', 1000)).rejects.toBeInstanceOf(RedisStoreError);
    await expect(store.complete('e')).rejects.toThrow(/unexpected reply/);
    const legacy = new RedisEventStore({ client: { sendCommand: () => undefined } as never });
    await expect(legacy.claim('e', 1000)).rejects.toThrow(/legacyMode/);
  });
});
