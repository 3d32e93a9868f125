import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisEventStore, RedisStatusStore } from 'checkout-partner-sdk/redis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { anotherWorkerTakesOver, exitsAfterGivingUp, givenUpPastMaxHandling, type StoreUnderTest } from './hung-callback.js';

// A callback that never ends, on the Redis stores: see hung-callback.ts.

let server: RedisServer;
let client: Redis;
beforeAll(async () => {
  server = await startRedis();
  client = new Redis(server.url);
});
afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

function onRedis(): StoreUnderTest {
  const prefix = `hung-${randomUUID()}:`;
  return {
    name: 'redis',
    env: { REDIS_URL: server.url, PREFIX: prefix },
    events: () => new RedisEventStore({ client, prefix: `${prefix}events:` }),
    records: () => new RedisStatusStore({ client, prefix: `${prefix}records:` }),
  };
}

describe.each(['webhook', 'tracker'] as const)('a hung %s callback on the Redis store', (part) => {
  it('exits within 5 s of closing once its drain gave up; another worker takes over within one lease', { timeout: 60_000 }, async () => {
    const store = onRedis();
    const gaveUpAt = await exitsAfterGivingUp(part, store);
    await anotherWorkerTakesOver(part, store, gaveUpAt);
  });

  it('past maxHandlingMs (3 s) the signal aborts, and another worker takes over within one lease', { timeout: 60_000 }, () =>
    givenUpPastMaxHandling(part, onRedis()),
  );
});
