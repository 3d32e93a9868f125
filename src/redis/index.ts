/**
 * `checkout-partner-sdk/redis`: a fleet's webhook dedupe ({@link RedisEventStore}), access token ({@link RedisTokenStore}) and
 * tracker records ({@link RedisStatusStore}) in Redis or a Redis Cluster, on your `ioredis` (v5+) or node-redis (`redis` v4+)
 * client. Each store refuses a server that may evict its keys (`allowEvictingServer: true` opts out).
 * @module
 */
export { RedisEventStore } from './event-store.js';
export type { RedisEventStoreOptions } from './event-store.js';
export { RedisTokenStore } from './token-store.js';
export { RedisStatusStore } from './status-store.js';
export type { RedisStatusStoreOptions } from './status-store.js';
export type { RedisTokenStoreOptions } from './token-store.js';
export { RedisStoreError } from './errors.js';
export type { IoRedisClientLike, NodeRedisClientLike, NodeRedisClusterLike, RedisClientLike, WaitForReplicas } from './client.js';
export type { RedisStoreOperation } from './errors.js';
