import { Cluster, Redis } from 'ioredis';
import { createClient } from 'redis';
import { describe, expectTypeOf, it } from 'vitest';
import type { ClaimedLease, EventStore } from 'checkout-partner-sdk/webhooks';
import type { TokenStore } from 'checkout-partner-sdk';
import {
  RedisEventStore,
  RedisStoreError,
  RedisTokenStore,
  type RedisClientLike,
  type RedisEventStoreOptions,
  type RedisStoreOperation,
  type RedisTokenStoreOptions,
} from 'checkout-partner-sdk/redis';

describe('checkout-partner-sdk/redis types', () => {
  it('accepts ioredis and node-redis clients without importing their types', () => {
    expectTypeOf<Redis>().toExtend<RedisClientLike>();
    expectTypeOf<Cluster>().toExtend<RedisClientLike>();
    expectTypeOf<ReturnType<typeof createClient>>().toExtend<RedisClientLike>();
    expectTypeOf<{ get(key: string): Promise<string> }>().not.toExtend<RedisClientLike>();
    expectTypeOf<RedisEventStoreOptions['client']>().toEqualTypeOf<RedisClientLike>();
    expectTypeOf<RedisTokenStoreOptions['client']>().toEqualTypeOf<RedisClientLike>();
  });

  it('implements the store interfaces', () => {
    expectTypeOf<RedisEventStore>().toExtend<EventStore>();
    expectTypeOf<RedisTokenStore>().toExtend<TokenStore>();
    expectTypeOf<RedisEventStore['claim']>().returns.resolves.toEqualTypeOf<ClaimedLease | 'in-flight' | 'done'>();
    expectTypeOf<RedisEventStore['complete']>().parameters.toEqualTypeOf<[eventId: string, lease?: unknown]>();
  });

  it('types the error', () => {
    expectTypeOf<RedisStoreError['name']>().toEqualTypeOf<'RedisStoreError'>();
    expectTypeOf<RedisStoreError['operation']>().toEqualTypeOf<RedisStoreOperation>();
  });
});
