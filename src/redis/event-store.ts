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
   * An `ioredis` client, or a connected node-redis client (`redis` package, from `createClient`).
   * The store never connects, quits or configures it. Give it a fail-fast setting for outages
   * (ioredis `enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000`, node-redis
   * `disableOfflineQueue: true`) so a delivery
   * during an outage gets its 503 quickly; `commandTimeoutMs` bounds every command either way.
   */
  client: RedisClientLike;
  /**
   * Put before every event id to form its key. Stores that share a prefix share their events, so
   * give every webhook endpoint whose events must be told apart its own prefix.
   * @default 'checkout-partner-sdk:event:'
   */
  prefix?: string | undefined;
  /**
   * How long, in seconds, a completed event is remembered as done. A redelivery after that is
   * handled again, so keep it longer than the payment provider retries a delivery.
   * @default 604_800 (7 days)
   */
  ttlSeconds?: number | undefined;
  /**
   * How long one store operation may take, in milliseconds, before it rejects with
   * `RedisStoreError` (a client that queues commands while reconnecting would otherwise hold the
   * delivery until Redis is back).
   * @default 5_000
   */
  commandTimeoutMs?: number | undefined;
  /**
   * Use a Redis whose `maxmemory-policy` may evict keys. By default the store reads the policy of
   * every master at first use (`INFO memory`) and refuses any but `noeviction` (the `volatile-*`
   * policies too: a completed event's key has a TTL, so they evict exactly it), because an evicted
   * key runs `onEvent` again at the next redelivery. `true` skips that check and accepts the risk.
   * @default false
   */
  allowEvictingServer?: boolean | undefined;
  /**
   * After `complete`, wait until this many replicas acknowledged it (`WAIT replicas timeoutMs`)
   * before it counts as recorded; when fewer do in time, `complete` rejects with `RedisStoreError`
   * (the event stays marked done on the master; the webhook handler logs it and retries `complete`,
   * which waits again, while the claim's lease holds, so redeliveries meanwhile get 409). Redis
   * replicates asynchronously: without this, a failover can lose completions already answered 200,
   * and the provider's next redelivery runs `onEvent` again.
   * @default undefined (no wait)
   */
  waitForReplicas?: WaitForReplicas | undefined;
}

const DEFAULT_PREFIX = 'checkout-partner-sdk:event:';
const DEFAULT_TTL_SECONDS = 7 * 24 * 60 * 60;
/** The value of a completed event's key. Leases hold `lease:<uuid>`, which never equals it. */
const DONE = 'done';
/** What every lease token starts with. */
const LEASE = 'lease:';
/**
 * ARGV: lease token, lease ms, done marker. Take the lease, or take it back when the key holds this
 * very token (an owner's, the same on each restart), or report who holds the key.
 */
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

/** Milliseconds left on the lease holding the key (Redis's clock), 0 when no lease does. */
const LEASE_LEFT: LuaScript = {
  source: `local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, 6) == 'lease:' then
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then return left end
end
return 0`,
};

/**
 * ARGV: lease token (`''` for none), done marker, ttl seconds. Mark done when the caller still
 * holds the lease, when it gave none and a lease holds the key, or when the key is gone (the lease
 * expired and nobody took it: the work was done all the same).
 * Replies `"completed"`, `"done"` (it was done already), `"leased"` (another lease holds it) or
 * `"foreign"` (a value no store wrote).
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

/** Every option of RedisEventStore: any other is refused. */
const REDIS_EVENT_STORE_OPTIONS = [
  'client',
  'prefix',
  'ttlSeconds',
  'commandTimeoutMs',
  'allowEvictingServer',
  'waitForReplicas',
] as const satisfies readonly (keyof RedisEventStoreOptions)[];

/**
 * An {@link EventStore} in Redis, so a fleet of webhook receivers handles each provider event once.
 * A claim is a key `prefix + eventId` holding a random lease token with a `leaseMs` expiry, set
 * with `SET NX PX` inside a Lua script that also tells `"done"` from `"in-flight"` in the same step.
 * A claim answers `{ status: 'claimed', lease }` (`lease` is the token); `complete` and `release`
 * given that lease act only while it still holds the key (compared in Lua), so a worker whose lease
 * expired cannot clobber the next worker's claim, whether that worker is in another process or in
 * this one.
 *
 * Semantics worth knowing:
 * - `complete` marks the key done for `ttlSeconds`; a later `claim` answers `"done"` until then.
 * - `complete` after this store's lease expired still marks the event done when nobody claimed it
 *   since (the key is gone: the work was done all the same), and resolves when it is done already.
 * - `complete` rejects with {@link RedisStoreError} (operation `'complete'`) when it cannot mark the
 *   event done: the lease passed and another worker claimed the event (or the key holds a value no
 *   store wrote). The other worker's claim is left alone; the webhook handler retries and logs it,
 *   since a redelivery may run the event again if that worker's claim ends without completing.
 * - `release` acts only on this store's own live lease; otherwise it does nothing (never throws).
 * - `renew` extends only this store's own live lease. A claim made with `{ owner }` uses a token
 *   derived from the owner, the same on each restart, so a claim under that owner takes it back.
 * - Without a lease (`complete(eventId)`, `release(eventId)`), `complete` marks the event done
 *   whichever lease holds it, and `release` deletes whichever lease holds it (a done key stays).
 * - Event ids of any characters are accepted; ids over 200 UTF-8 bytes are keyed by their SHA-256
 *   (`prefix + "sha256:" + hex`), so keys stay short, and so is an id that itself starts with
 *   `sha256` (so no literal id can be taken for another id's hash).
 * - The store keeps nothing in this process: the lease travels with the claim, so any instance
 *   (in any process) can complete or release it.
 * - Every Redis failure rejects with {@link RedisStoreError}; the webhook handler answers 503.
 *
 * Requires Redis 2.6.12 or later (any Redis or Valkey in use today) with scripting enabled.
 *
 * @example
 * // ioredis
 * import Redis from 'ioredis';
 * import { RedisEventStore } from 'checkout-partner-sdk/redis';
 * const store = new RedisEventStore({ client: new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000 }) });
 *
 * @example
 * // node-redis (the `redis` package)
 * import { createClient } from 'redis';
 * import { RedisEventStore } from 'checkout-partner-sdk/redis';
 * const redis = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const store = new RedisEventStore({ client: redis, prefix: 'shop-a:event:' });
 * const handler = createWebhookHandler({ secret, client, store, onEvent });
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

  /**
   * Claims `eventId` for `leaseMs` milliseconds: `{ status: "claimed", lease }` when this store
   * now holds it (pass `lease` to `complete` or `release`), `"in-flight"` when a live lease (of any
   * store instance, this one included) holds it, `"done"` when it was completed within `ttlSeconds`.
   * A live lease taken under the same `options.owner` (by any process) is taken back: claimed again.
   */
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

  /**
   * Marks `eventId` done for `ttlSeconds` when `lease` still holds its key, or when the key is gone (the lease expired unclaimed); resolves
   * when it is done already. Without a lease (`undefined`) it marks `eventId` done whichever lease holds it.
   *
   * @throws {RedisStoreError} (operation `'complete'`) when the event was not marked done because
   *   the lease passed and another worker claimed it (that claim is left alone), or the key
   *   holds a value no store wrote; and on any Redis failure.
   * @throws {TypeError} when `lease` is neither `undefined` nor a lease this store's claim returned.
   */
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

  /**
   * Deletes `lease` on `eventId` while it still holds the key, so a redelivery can claim it at once.
   * Another lease is left alone. Without a lease (`undefined`) it deletes whichever lease holds the
   * key; a done event stays done.
   *
   * @throws {TypeError} when `lease` is neither `undefined` nor a lease this store's claim returned.
   */
  async release(eventId: string, lease?: unknown): Promise<void> {
    checkEventId(eventId);
    const token = leaseToken(lease);
    const key = await this.#key(eventId);
    await this.#redis.script('release', RELEASE, [key], [token]);
  }

  /**
   * Extends `lease` on `eventId` to `leaseMs` from now (Redis's clock): `true` while it still holds
   * the key, `false` once it expired or another lease holds it.
   *
   * @throws {TypeError} when `lease` is not a lease this store's claim returned.
   */
  async renew(eventId: string, lease: unknown, leaseMs: number): Promise<boolean> {
    checkEventId(eventId);
    const token = leaseToken(lease);
    if (token === '') throw new TypeError("lease must be the lease this store's claim returned, got undefined");
    checkLeaseMs(leaseMs);
    const key = await this.#key(eventId);
    return Number(await this.#redis.script('extend', RENEW, [key], [token, String(Math.ceil(leaseMs))])) === 1;
  }

  /** Milliseconds left on the lease that holds `eventId` (Redis's clock), `0` when none does. */
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

/** `leaseMs` of `claim` and `renew`: a positive number of milliseconds, else a `TypeError`. */
function checkLeaseMs(leaseMs: unknown): asserts leaseMs is number {
  if (typeof leaseMs !== 'number' || !(leaseMs > 0) || leaseMs > Number.MAX_SAFE_INTEGER) {
    throw new TypeError(`leaseMs must be a positive number of milliseconds, got ${quote(leaseMs)}`);
  }
}

/** The token a claim of this store returned as its lease, `''` for no lease, else a `TypeError`. */
function leaseToken(lease: unknown): string {
  if (lease === undefined) return '';
  if (typeof lease !== 'string' || !lease.startsWith(LEASE)) {
    throw new TypeError(`lease must be the lease this store's claim returned, got ${typeName(lease)}`);
  }
  return lease;
}

function ttlOption(value: unknown): number {
  if (value === undefined) return DEFAULT_TTL_SECONDS;
  // a safe integer: EX takes a 64-bit count, and a larger number would be sent in exponent form
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`ttlSeconds must be a whole number of seconds from 1 to ${Number.MAX_SAFE_INTEGER}, got ${quote(value)}`);
  }
  return value;
}
