import * as z from 'zod/mini';
import type { StoredToken, TokenStore } from '../stores/token-store.js';
import { typeName } from '../internal/type-name.js';
import { checkOptions, positiveMs } from '../internal/arguments.js';
import { DELETE_IF_OWNER, RedisConnection, replyString, type LuaScript, type RedisClientLike } from './client.js';
import { RedisStoreError } from './errors.js';
import { prefixOption } from './options.js';

/** Options of {@link RedisTokenStore}. */
export interface RedisTokenStoreOptions {
  /** An `ioredis` client or a connected node-redis one, which the store never connects, quits or configures. */
  client: RedisClientLike;
  /** Put before every key; the client's keys already name the service, partner and secret, so only environments need it. @default '' */
  prefix?: string | undefined;
  /** How long one store operation may take, in milliseconds, before it rejects with `RedisStoreError`. @default 5_000 */
  commandTimeoutMs?: number | undefined;
  /** How long an exchange lock lives, in milliseconds: others wait that long for its holder's token, then exchange. @default 5_000 */
  lockMs?: number | undefined;
  /**
   * Accept a `maxmemory-policy` other than `noeviction`: an evicted token costs only an exchange. A refusal (at first use) is
   * quiet here, since the client bypasses a failing token store and each process keeps its own token.
   * @default false
   */
  allowEvictingServer?: boolean | undefined;
}

/** The token and its remaining lifetime (ms; -1 without a TTL), in one step. */
const GET_WITH_TTL: LuaScript = {
  source: `return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}`,
};

/** Anything else stored reads as no token. */
const StoredTokenSchema = z.object({
  accessToken: z.string().check(z.minLength(1)),
  expiresAt: z.number().check(z.refine(Number.isFinite)),
});

const REDIS_TOKEN_STORE_OPTIONS = [
  'client',
  'prefix',
  'commandTimeoutMs',
  'lockMs',
  'allowEvictingServer',
] as const satisfies readonly (keyof RedisTokenStoreOptions)[];

/**
 * A {@link TokenStore} in Redis for `CheckoutClient`'s `tokenStore`: a fleet shares one token, stored as JSON under `prefix + key`
 * until the client would stop using it. The token is a credential: keep this Redis as private as the partner secret. While Redis
 * fails the client goes on with a token of its own; a cold fleet makes one exchange, under a lock (`prefix + key + ':lock'`).
 *
 * @example
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

  async get(key: string): Promise<StoredToken | undefined> {
    checkKey(key);
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
    // Redis counts the time left, so a reader whose clock differs from the writer's still stops when the writer meant
    const expiresAt = ttlMs >= 0 ? asked + ttlMs : parsed.data.expiresAt;
    return { accessToken: parsed.data.accessToken, expiresAt };
  }

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
