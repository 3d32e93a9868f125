import type { ClaimedLease, ClaimOptions, EventStore } from '../stores/event-store.js';
import { claimOwner, ownerLeaseId } from '../stores/claim-owner.js';
import { checkEventId, checkOptions } from '../internal/arguments.js';
import { typeName } from '../internal/type-name.js';
import { RedisConnection, replyString, type LuaScript, type RedisClientLike, type WaitForReplicas } from './client.js';
import { RedisStoreError } from './errors.js';
import { eventKeySuffix } from '../stores/event-key.js';
import { prefixOption } from './options.js';
import { quote } from '../internal/quote.js';

/** Options of {@link RedisEventStore}. */
export interface RedisEventStoreOptions {
  /**
   * An `ioredis` client or a connected node-redis one, which the store never connects, quits or configures. Make it fail fast, as
   * in the example, so a delivery during an outage gets its 503 quickly; `commandTimeoutMs` bounds every command either way.
   */
  client: RedisClientLike;
  /** Put before every event id; stores that share a prefix share their events. @default 'checkout-partner-sdk:event:' */
  prefix?: string | undefined;
  /** How long a completed event is remembered, in seconds: keep it longer than the provider retries. @default 604_800 (7 days) */
  ttlSeconds?: number | undefined;
  /** How long one store operation may take, in milliseconds, before it rejects with `RedisStoreError`. @default 5_000 */
  commandTimeoutMs?: number | undefined;
  /** Accept a `maxmemory-policy` other than `noeviction` (refused at first use): an evicted key runs `onEvent` again. @default false */
  allowEvictingServer?: boolean | undefined;
  /**
   * After `complete`, wait for this many replicas, since a failover may lose what only the master has; too few in time: `complete`
   * rejects (the event stays done on the master) and the handler retries it while the lease holds.
   * @default undefined (no wait)
   */
  waitForReplicas?: WaitForReplicas | undefined;
}

const DEFAULT_PREFIX = 'checkout-partner-sdk:event:';
const DEFAULT_TTL_SECONDS = 7 * 24 * 60 * 60;
/** A completed event's value; a lease's is `lease:<uuid>`. */
const DONE = 'done';
const LEASE = 'lease:';
/** ARGV: lease token, lease ms, done marker. Takes the lease, or takes it back from this very token (an owner's), or says who holds it. */
const CLAIM: LuaScript = {
  source: `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'claimed' end
local current = redis.call('GET', KEYS[1])
if current == ARGV[3] then return 'done' end
if current == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 'claimed'
end
return 'in-flight'`,
};

/** ARGV: lease token, lease ms. Extends that lease while it holds the key: 1, else 0. */
const RENEW: LuaScript = {
  source: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`,
};

/** Milliseconds left on the lease holding the key, 0 when none does. */
const LEASE_LEFT: LuaScript = {
  source: `local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, 6) == 'lease:' then
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then return left end
end
return 0`,
};

/**
 * ARGV: lease token (`''` for none), done marker, ttl seconds. Marks done under the caller's lease, any lease when it gave none, or
 * no key (its lease expired unclaimed). Replies `completed`, `done`, `leased` (another lease holds it) or `foreign` (not a store's).
 */
const COMPLETE: LuaScript = {
  source: `local current = redis.call('GET', KEYS[1])
if current == ARGV[2] then return 'done' end
local leased = current ~= false and string.sub(current, 1, 6) == 'lease:'
if current == false or current == ARGV[1] or (ARGV[1] == '' and leased) then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 'completed'
end
if leased then return 'leased' end
return 'foreign'`,
};

/** ARGV: lease token (`''` for none). Deletes that lease, or with none any lease; never a done key. */
const RELEASE: LuaScript = {
  source: `local current = redis.call('GET', KEYS[1])
if current ~= false and (current == ARGV[1] or (ARGV[1] == '' and string.sub(current, 1, 6) == 'lease:')) then
  return redis.call('DEL', KEYS[1])
end
return 0`,
};

const REDIS_EVENT_STORE_OPTIONS = [
  'client',
  'prefix',
  'ttlSeconds',
  'commandTimeoutMs',
  'allowEvictingServer',
  'waitForReplicas',
] as const satisfies readonly (keyof RedisEventStoreOptions)[];

/**
 * An {@link EventStore} in Redis (2.6.12+, scripting on): a claim is the key `prefix + eventId` holding a lease token for `leaseMs`
 * (a long id is hashed), settled only by that token, in Lua. A late `complete` under another lease rejects with {@link RedisStoreError}.
 *
 * @example
 * // fail fast while Redis is down (node-redis: createClient({ url, disableOfflineQueue: true }).connect())
 * import Redis from 'ioredis';
 * const redis = new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000 });
 * const store = new RedisEventStore({ client: redis });
 */
export class RedisEventStore implements EventStore {
  /** The key prefix in use. */
  readonly prefix: string;
  /** Seconds a completed event is remembered. */
  readonly ttlSeconds: number;
  readonly #redis: RedisConnection;

  constructor(options: RedisEventStoreOptions) {
    checkOptions('RedisEventStore', options, REDIS_EVENT_STORE_OPTIONS);
    this.#redis = new RedisConnection(options.client, {
      owner: 'RedisEventStore',
      commandTimeoutMs: options.commandTimeoutMs,
      redactCauses: false,
      allowEvictingServer: options.allowEvictingServer,
      waitForReplicas: options.waitForReplicas,
    });
    this.prefix = prefixOption(options.prefix, DEFAULT_PREFIX);
    this.ttlSeconds = ttlOption(options.ttlSeconds);
  }

  async claim(eventId: string, leaseMs: number, options?: ClaimOptions): Promise<ClaimedLease | 'in-flight' | 'done'> {
    checkEventId(eventId);
    checkLeaseMs(leaseMs);
    const owner = claimOwner(options);
    const key = await this.#key(eventId);
    const token = `${LEASE}${owner === undefined ? globalThis.crypto.randomUUID() : await ownerLeaseId(owner)}`;
    const reply = await this.#redis.script('claim', CLAIM, [key], [token, String(Math.ceil(leaseMs)), DONE]);
    const result = replyString(reply);
    if (result !== 'claimed' && result !== 'in-flight' && result !== 'done') {
      throw new RedisStoreError('Redis claim failed: unexpected reply to the claim script', { operation: 'claim' });
    }
    if (result !== 'claimed') return result;
    return { status: 'claimed', lease: token };
  }

  async complete(eventId: string, lease?: unknown): Promise<void> {
    checkEventId(eventId);
    const token = leaseToken(lease);
    const key = await this.#key(eventId);
    const reply = await this.#redis.script('complete', COMPLETE, [key], [token, DONE, String(this.ttlSeconds)]);
    const result = replyString(reply);
    if (result !== 'completed' && result !== 'done' && result !== 'leased' && result !== 'foreign') {
      throw new RedisStoreError('Redis complete failed: unexpected reply to the complete script', { operation: 'complete' });
    }
    if (result === 'completed' || result === 'done') await this.#redis.replicated('complete', key);
    if (result === 'leased') {
      throw new RedisStoreError(
        "Redis complete failed: the event was not marked done because this worker's lease on it passed and another worker claimed it",
        { operation: 'complete' },
      );
    }
    if (result === 'foreign') {
      throw new RedisStoreError(
        "Redis complete failed: the event's key holds a value that no RedisEventStore wrote, so it was left alone",
        { operation: 'complete' },
      );
    }
  }

  async release(eventId: string, lease?: unknown): Promise<void> {
    checkEventId(eventId);
    const token = leaseToken(lease);
    const key = await this.#key(eventId);
    await this.#redis.script('release', RELEASE, [key], [token]);
  }

  async renew(eventId: string, lease: unknown, leaseMs: number): Promise<boolean> {
    checkEventId(eventId);
    const token = leaseToken(lease);
    if (token === '') throw new TypeError("lease must be the lease this store's claim returned, got undefined");
    checkLeaseMs(leaseMs);
    const key = await this.#key(eventId);
    return Number(await this.#redis.script('extend', RENEW, [key], [token, String(Math.ceil(leaseMs))])) === 1;
  }

  async leaseLeftMs(eventId: string): Promise<number> {
    checkEventId(eventId);
    const key = await this.#key(eventId);
    const left = Number(await this.#redis.script('get', LEASE_LEFT, [key], []));
    return Number.isFinite(left) && left > 0 ? left : 0;
  }

  async #key(eventId: string): Promise<string> {
    return `${this.prefix}${await eventKeySuffix(eventId)}`;
  }
}

function checkLeaseMs(leaseMs: unknown): asserts leaseMs is number {
  if (typeof leaseMs !== 'number' || !(leaseMs > 0) || leaseMs > Number.MAX_SAFE_INTEGER) {
    throw new TypeError(`leaseMs must be a positive number of milliseconds, got ${quote(leaseMs)}`);
  }
}

/** `''` for no lease. */
function leaseToken(lease: unknown): string {
  if (lease === undefined) return '';
  if (typeof lease !== 'string' || !lease.startsWith(LEASE)) {
    throw new TypeError(`lease must be the lease this store's claim returned, got ${typeName(lease)}`);
  }
  return lease;
}

function ttlOption(value: unknown): number {
  if (value === undefined) return DEFAULT_TTL_SECONDS;
  // a larger number would be sent in exponent form, which EX refuses
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`ttlSeconds must be a whole number of seconds from 1 to ${Number.MAX_SAFE_INTEGER}, got ${quote(value)}`);
  }
  return value;
}
