import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { describe, expectTypeOf, it } from 'vitest';
import type { ClaimedLease, EventStore, TokenStore } from 'checkout-partner-sdk/stores';
import {
  RedisEventStore,
  RedisStatusStore,
  RedisStoreError,
  RedisTokenStore,
  type RedisClientLike,
  type RedisStatusStoreOptions,
  type RedisEventStoreOptions,
  type RedisTokenStoreOptions,
} from 'checkout-partner-sdk/redis';

describe('checkout-partner-sdk/redis types', () => {
  it('accepts ioredis and node-redis clients without importing their types', () => {
    expectTypeOf<Redis>().toExtend<RedisClientLike>();
    expectTypeOf<Cluster>().toExtend<RedisClientLike>();
    expectTypeOf<ReturnType<typeof createClient>>().toExtend<RedisClientLike>();
    expectTypeOf<ReturnType<typeof createCluster>>().toExtend<RedisClientLike>();
    expectTypeOf<RedisStatusStoreOptions['client']>().toEqualTypeOf<RedisClientLike>();
    expectTypeOf<{ get(key: string): Promise<string> }>().not.toExtend<RedisClientLike>();
    expectTypeOf<RedisEventStoreOptions['client']>().toEqualTypeOf<RedisClientLike>();
    expectTypeOf<RedisTokenStoreOptions['client']>().toEqualTypeOf<RedisClientLike>();
  });

  it('implements the store interfaces', () => {
    expectTypeOf<RedisEventStore>().toExtend<EventStore>();
    expectTypeOf<RedisEventStore>().toExtend<Required<EventStore>>(); // renew, leaseLeftMs and claim's { owner } too
    expectTypeOf<RedisTokenStore>().toExtend<TokenStore>();
    expectTypeOf<RedisEventStore['claim']>().returns.resolves.toEqualTypeOf<ClaimedLease | 'in-flight' | 'done'>();
    expectTypeOf<RedisEventStore['complete']>().parameters.toEqualTypeOf<[eventId: string, lease?: unknown]>();
  });

  it('types the eviction opt-out, the replica wait and the parts', () => {
    expectTypeOf<RedisEventStoreOptions['allowEvictingServer']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<RedisTokenStoreOptions['allowEvictingServer']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<RedisStatusStoreOptions['allowEvictingServer']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<RedisEventStoreOptions['waitForReplicas']>().toEqualTypeOf<{ replicas: number; timeoutMs: number } | undefined>();
    expectTypeOf<RedisStatusStoreOptions['waitForReplicas']>().toEqualTypeOf<{ replicas: number; timeoutMs: number } | undefined>();
    expectTypeOf<RedisStatusStoreOptions['shards']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<RedisStatusStore['reclaim']>().returns.resolves.toEqualTypeOf<number>();
    // the token store has no replica wait: a token is a cache
    expectTypeOf<RedisTokenStoreOptions>().not.toHaveProperty('waitForReplicas');
  });

  it('types the error', () => {
    expectTypeOf<RedisStoreError['name']>().toEqualTypeOf<'RedisStoreError'>();
    expectTypeOf<RedisStoreError['operation']>().toEqualTypeOf<
      | 'claim'
      | 'complete'
      | 'release'
      | 'get'
      | 'set'
      | 'watch'
      | 'unwatch'
      | 'nudge'
      | 'count'
      | 'extend'
      | 'commit'
      | 'reschedule'
      | 'reclaim'
      | 'rememberKey'
      | 'findByKey'
    >();
  });
});
