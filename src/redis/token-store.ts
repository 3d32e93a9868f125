import * as z from 'zod/mini';
import type { StoredToken, TokenStore } from '../stores/token-store.js';
import { typeName } from '../internal/type-name.js';
import { checkOptions, positiveMs } from '../internal/arguments.js';
import { DELETE_IF_OWNER, RedisConnection, replyString, type LuaScript, type RedisClientLike } from './client.js';
import { RedisStoreError } from './errors.js';
import { prefixOption } from './options.js';

/** Options of {@link RedisTokenStore}. */
export interface RedisTokenStoreOptions {
  /**
   * An `ioredis` client, or a connected node-redis client (`redis` package, from `createClient`).
   * The store never connects, quits or configures it.
   */
  client: RedisClientLike;
  /**
   * Put before every key the client asks for. The client's keys already name the SDK, the service,
   * the partner and a fingerprint of its secret (`checkout-partner-sdk:token:<baseUrl>:<partnerId>:<hmac>`),
   * so a prefix is only needed to keep apart environments that share one Redis and one partner.
   * @default ''
   */
  prefix?: string | undefined;
  /**
   * How long one store operation may take, in milliseconds, before it rejects with `RedisStoreError`.
   * @default 5_000
   */
  commandTimeoutMs?: number | undefined;
  /**
   * How long one process's token-exchange lock lives at most, in milliseconds. While a process
   * exchanges, the others sharing the store wait up to this long for its token, then exchange
   * themselves.
   * @default 5_000
   */
  lockMs?: number | undefined;
  /**
   * Use a Redis whose `maxmemory-policy` may evict keys. By default the store reads the policy of
   * every master at first use (`INFO memory`) and refuses any but `noeviction`, as the other Redis
   * stores do. `CheckoutClient` bypasses a token store that fails, so a refusal here only shows as
   * each process keeping its own token (the event and status stores on the same Redis refuse
   * loudly). An evicted token only costs an exchange, so `true` is a reasonable choice for this
   * store alone.
   * @default false
   */
  allowEvictingServer?: boolean | undefined;
}

/** The token and its remaining lifetime (ms, as Redis counts it; -1 without a TTL), in one step. */
const GET_WITH_TTL: LuaScript = {
  source: `return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}`,
};

/** What is stored: JSON of the token and its reuse deadline. Anything else reads as no token. */
const StoredTokenSchema = z.object({
  accessToken: z.string().check(z.minLength(1)),
  expiresAt: z.number().check(z.refine(Number.isFinite)),
});

/** Every option of RedisTokenStore: any other is refused. */
const REDIS_TOKEN_STORE_OPTIONS = [
  'client',
  'prefix',
  'commandTimeoutMs',
  'lockMs',
  'allowEvictingServer',
] as const satisfies readonly (keyof RedisTokenStoreOptions)[];

/**
 * A {@link TokenStore} in Redis, for `CheckoutClient`'s `tokenStore` option: every process that
 * shares it reuses one access token per lifetime instead of minting its own. Each token is stored
 * as JSON under `prefix + key` and expires (PX) when the client would stop reusing it.
 *
 * The token is a credential: the Redis holding it should be as private as the partner secret.
 * A stored value that is not a token (edited by hand, or written by another program) reads as no
 * token, and the client mints a new one that replaces it.
 *
 * The store's own `get` and `set` reject with {@link RedisStoreError} when Redis fails. The client
 * does not pass that on: it treats a failing store as empty, exchanges for a token itself and keeps
 * it in memory, so its calls go on working while Redis is down (processes just stop sharing one
 * token until Redis is back; the client skips a failed store for 30 s).
 *
 * A cold fleet makes one exchange: the client takes a short lock (`SET NX PX`, `lockMs`) under
 * `prefix + key + ':lock'` around its exchange; the other processes wait for the token it stores,
 * and exchange themselves only if none comes within `lockMs`.
 *
 * @example
 * // ioredis, failing fast while Redis is down or paused
 * import Redis from 'ioredis';
 * import { CheckoutClient } from 'checkout-partner-sdk';
 * import { RedisTokenStore } from 'checkout-partner-sdk/redis';
 * const redis = new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 1_000 });
 * const client = new CheckoutClient({ tokenStore: new RedisTokenStore({ client: redis }) });
 *
 * @example
 * // node-redis (the `redis` package)
 * import { createClient } from 'redis';
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const client = new CheckoutClient({ tokenStore: new RedisTokenStore({ client: redis }) });
 */
export class RedisTokenStore implements TokenStore {
  /** The key prefix in use. */
  readonly prefix: string;
  /** How long an exchange lock lives at most, in milliseconds. */
  readonly lockMs: number;
  readonly #redis: RedisConnection;

  constructor(options: RedisTokenStoreOptions) {
    checkOptions('RedisTokenStore', options, REDIS_TOKEN_STORE_OPTIONS);
    this.#redis = new RedisConnection(options.client, {
      owner: 'RedisTokenStore',
      commandTimeoutMs: options.commandTimeoutMs,
      redactCauses: true,
      allowEvictingServer: options.allowEvictingServer,
    });
    this.prefix = prefixOption(options.prefix, '');
    this.lockMs = positiveMs('lockMs', options.lockMs, 5_000);
  }

  /**
   * Takes the exchange lock for `key` (`SET NX PX lockMs` under `prefix + key + ':lock'`): resolves
   * with its release, or `undefined` when another process holds it.
   */
  async lock(key: string): Promise<(() => Promise<void>) | undefined> {
    checkKey(key);
    const lockKey = `${this.prefix}${key}:lock`;
    const owner = globalThis.crypto.randomUUID();
    const reply = await this.#redis.command('set', ['SET', lockKey, owner, 'NX', 'PX', String(Math.ceil(this.lockMs))]);
    if (reply === null) return undefined;
    return async () => {
      await this.#redis.script('release', DELETE_IF_OWNER, [lockKey], [owner]);
    };
  }

  /** The token stored under `key`, or `undefined` when there is none or the value is not a token. */
  async get(key: string): Promise<StoredToken | undefined> {
    checkKey(key);
    // taken before the request: the remaining time counts from no earlier than this
    const asked = Date.now();
    const reply = await this.#redis.script('get', GET_WITH_TTL, [`${this.prefix}${key}`], []);
    const value = Array.isArray(reply) ? replyString(reply[0]) : undefined;
    const ttlMs = Array.isArray(reply) ? Number(reply[1]) : Number.NaN;
    if (value === undefined || Number.isNaN(ttlMs)) {
      throw new RedisStoreError('Redis get failed: unexpected reply to the GET script', { operation: 'get' });
    }
    if (value === null) return undefined;
    let data: unknown;
    try {
      data = JSON.parse(value);
    } catch {
      return undefined;
    }
    const parsed = StoredTokenSchema.safeParse(data);
    if (!parsed.success) return undefined;
    // One clock: the key's remaining time is counted by Redis, so a reader whose wall clock differs
    // from the writer's still ends the token's reuse when the writer meant (a stored epoch would not).
    const expiresAt = ttlMs >= 0 ? asked + ttlMs : parsed.data.expiresAt;
    return { accessToken: parsed.data.accessToken, expiresAt };
  }

  /** Stores `token` under `key` until `token.expiresAt`; a token already past it is not stored. */
  async set(key: string, token: StoredToken): Promise<void> {
    checkKey(key);
    if (!StoredTokenSchema.safeParse(token).success) {
      throw new TypeError('token must be { accessToken: non-empty string, expiresAt: epoch milliseconds }');
    }
    const ttlMs = Math.ceil(token.expiresAt - Date.now());
    if (ttlMs <= 0) return;
    const value = JSON.stringify({ accessToken: token.accessToken, expiresAt: token.expiresAt });
    await this.#redis.command('set', ['SET', `${this.prefix}${key}`, value, 'PX', String(ttlMs)]);
  }
}

function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key === '') {
    throw new TypeError(`key must be a non-empty string, got ${key === '' ? 'an empty string' : typeName(key)}`);
  }
}
