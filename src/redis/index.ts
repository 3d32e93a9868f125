/**
 * `checkout-partner-sdk/redis`: Redis-backed stores that let many processes and machines share
 * webhook deduplication ({@link RedisEventStore}), the access token ({@link RedisTokenStore}) and
 * the status tracker's records ({@link RedisStatusStore}).
 *
 * Bring your own client: `ioredis` (v5 or later) or node-redis (the `redis` package, v4 or later),
 * both optional peer dependencies that this entry never imports; a Redis Cluster (ioredis `Cluster`,
 * node-redis `createCluster`) works too. Each store refuses a server whose `maxmemory-policy` may
 * evict its keys (`allowEvictingServer: true` opts out) and can wait for replicas before a
 * hand-over counts (`waitForReplicas`).
 *
 * @example
 * // ioredis
 * import Redis from 'ioredis';
 * import { RedisEventStore, RedisTokenStore } from 'checkout-partner-sdk/redis';
 * const redis = new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 1_000 });
 * const client = new CheckoutClient({ tokenStore: new RedisTokenStore({ client: redis }) });
 * const handler = createWebhookHandler({ secret, client, onEvent, store: new RedisEventStore({ client: redis }) });
 *
 * @example
 * // node-redis
 * import { createClient } from 'redis';
 * const redis = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const store = new RedisEventStore({ client: redis });
 *
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
