import { eventKeySuffix } from '../stores/event-key.js';
import { typeName } from '../internal/type-name.js';
import { checkExternalId, checkKind, wholeNumber } from '../tracker/arguments.js';
import { NUDGE_PRIORITY_MS } from '../tracker/types.js';
import type {
  ClaimDueRequest,
  ClaimedStatusRecord,
  StatusKind,
  StatusLease,
  StatusRecordState,
  StatusStore,
  StatusTurn,
} from '../tracker/types.js';
import type { WebhookEvent } from '../webhooks/event.js';
import { RedisConnection, replyString, type LuaScript, type RedisClientLike } from './client.js';
import { RedisStoreError } from './errors.js';
import { prefixOption } from './options.js';

/** Options of {@link RedisStatusStore}. */
export interface RedisStatusStoreOptions {
  /**
   * An `ioredis` client, or a connected node-redis client (`redis` package, from `createClient`).
   * The store never connects, quits or configures it. A Redis Cluster is not supported (the
   * scripts touch the due index and a record's hash together).
   */
  client: RedisClientLike;
  /**
   * Put before every key: `<prefix>due` (the due index, a sorted set) and `<prefix>r:<kind>:<id>`
   * (one hash per record). Trackers that share a prefix share their records.
   * @default 'checkout-partner-sdk:status:'
   */
  prefix?: string | undefined;
  /**
   * How long a record's last handled status is kept after its watch ended, in seconds, so a
   * replayed provider event finds it and calls nothing. Keep it far longer than the provider
   * retries a delivery (and than the event store's `ttlSeconds`).
   * @default 2_592_000 (30 days)
   */
  retentionSeconds?: number | undefined;
  /**
   * How long one store operation may take, in milliseconds, before it rejects with `RedisStoreError`.
   * @default 5_000
   */
  commandTimeoutMs?: number | undefined;
}

const DEFAULT_PREFIX = 'checkout-partner-sdk:status:';
const DEFAULT_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/** Due at the lease's end while a live lease holds the record, else at `now` (shared by watch and nudge). */
const DUE_NOW_OR_LEASE_END = `local at = now
local lu = tonumber(redis.call('HGET', KEYS[2], 'lu') or '0')
if redis.call('HEXISTS', KEYS[2], 'lt') == 1 and lu > now then at = lu end`;

/** ARGV: kind, id, now, member. A watched record keeps its schedule; otherwise a watch starts now. */
const WATCH: LuaScript = {
  source: `local now = tonumber(ARGV[3])
if redis.call('HGET', KEYS[2], 'w') == '1' then return 0 end
redis.call('HSET', KEYS[2], 'k', ARGV[1], 'id', ARGV[2], 'w', '1', 'wa', ARGV[3])
redis.call('HSETNX', KEYS[2], 'f', '0')
redis.call('HSETNX', KEYS[2], 'ns', '0')
redis.call('PERSIST', KEYS[2])
${DUE_NOW_OR_LEASE_END}
redis.call('ZADD', KEYS[1], at, ARGV[4])
return 1`,
};

/** ARGV: kind, id, now, event JSON ('' for none), member, priority ms (due that long before now: ahead of the backlog). */
const NUDGE: LuaScript = {
  source: `local now = tonumber(ARGV[3])
redis.call('HSET', KEYS[2], 'k', ARGV[1], 'id', ARGV[2], 'na', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'ev', ARGV[4]) end
redis.call('HINCRBY', KEYS[2], 'ns', 1)
redis.call('HSETNX', KEYS[2], 'f', '0')
if redis.call('HGET', KEYS[2], 'w') ~= '1' then
  redis.call('HSET', KEYS[2], 'w', '1', 'wa', ARGV[3])
  redis.call('PERSIST', KEYS[2])
end
${DUE_NOW_OR_LEASE_END}
if at == now then at = now - tonumber(ARGV[6]) end
redis.call('ZADD', KEYS[1], at, ARGV[5])
return 1`,
};

/** ARGV: retention ms, member. */
const UNWATCH: LuaScript = {
  source: `if redis.call('HGET', KEYS[2], 'w') ~= '1' then return 0 end
redis.call('HSET', KEYS[2], 'w', '0')
redis.call('HDEL', KEYS[2], 'na', 'ev')
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1`,
};

/**
 * KEYS: the due index. ARGV: now, limit, lease ms, owner, token base, record key prefix. Claims the
 * due records earliest first: each gets a lease token and its due time moves to the lease's end.
 * Replies member, HGETALL, member, HGETALL, …
 */
const CLAIM_DUE: LuaScript = {
  source: `local now = tonumber(ARGV[1])
local leaseEnd = now + tonumber(ARGV[3])
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i, m in ipairs(members) do
  local rec = ARGV[6] .. m
  if redis.call('HGET', rec, 'w') ~= '1' then
    redis.call('ZREM', KEYS[1], m)
  else
    redis.call('HSET', rec, 'lt', ARGV[5] .. ':' .. i, 'lo', ARGV[4], 'lu', string.format('%d', leaseEnd), 'ls', redis.call('HGET', rec, 'ns') or '0')
    redis.call('ZADD', KEYS[1], leaseEnd, m)
    out[#out + 1] = m
    out[#out + 1] = redis.call('HGETALL', rec)
  end
end
return out`,
};

/** ARGV: token, lease end, member. */
const EXTEND: LuaScript = {
  source: `if redis.call('HGET', KEYS[2], 'lt') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], 'lu', ARGV[2])
if redis.call('HGET', KEYS[2], 'w') == '1' then redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3]) end
return 1`,
};

/**
 * ARGV: token, now, commit ('1' records the status), status JSON, next ('delay' | 'final' |
 * 'max-age'), delay ms, failures, retention ms, member, nudge priority ms, keep nudge ('1'). Checks the lease and ends the turn in one
 * step; a nudge that came during the turn makes the record due at once.
 */
const END_TURN: LuaScript = {
  source: `if redis.call('HGET', KEYS[2], 'lt') ~= ARGV[1] then return 0 end
local now = tonumber(ARGV[2])
local nudged = redis.call('HGET', KEYS[2], 'ns') ~= redis.call('HGET', KEYS[2], 'ls')
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[2], 'hs', ARGV[4], 'ha', ARGV[2])
  if not nudged and ARGV[11] ~= '1' then redis.call('HDEL', KEYS[2], 'na', 'ev') end
end
redis.call('HSET', KEYS[2], 'f', ARGV[7])
redis.call('HDEL', KEYS[2], 'lt', 'lo', 'lu', 'ls')
if redis.call('HGET', KEYS[2], 'w') ~= '1' then
  redis.call('ZREM', KEYS[1], ARGV[9])
  return 1
end
if nudged then
  redis.call('ZADD', KEYS[1], now - tonumber(ARGV[10]), ARGV[9])
  return 1
end
if ARGV[5] == 'delay' then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[6]), ARGV[9])
  return 1
end
redis.call('HSET', KEYS[2], 'w', '0')
redis.call('HDEL', KEYS[2], 'na', 'ev')
redis.call('ZREM', KEYS[1], ARGV[9])
redis.call('PEXPIRE', KEYS[2], ARGV[8])
return 1`,
};

/** ARGV: token, now, member. */
const RELEASE: LuaScript = {
  source: `if redis.call('HGET', KEYS[2], 'lt') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[2], 'lt', 'lo', 'lu', 'ls')
if redis.call('HGET', KEYS[2], 'w') == '1' then redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3]) end
return 1`,
};

/**
 * A {@link StatusStore} in Redis, so a fleet of trackers shares one schedule and each status change
 * is handed over once across every process and restart. Each record is one hash; the due records
 * are found through one sorted set scored by due time (`ZRANGEBYSCORE`), never by scanning. A claim
 * moves a record's score to the end of its lease, so the record of a process that died is due
 * again when the lease runs out. Every step that checks a lease (extend, commit, reschedule,
 * release) is one Lua script comparing the lease token, so a process whose lease passed cannot
 * record a change (it is logged as `lease-lost` and the new holder hands it over).
 *
 * Durability follows Redis': with the append-only file on (`appendonly yes`, `appendfsync always`
 * for no loss at all), a Redis restart loses nothing; without persistence, a restart forgets the
 * watches and the handled statuses.
 *
 * Requires Redis 2.6.12 or later with scripting; a Redis Cluster is not supported.
 *
 * @example
 * import Redis from 'ioredis';
 * import { RedisStatusStore } from 'checkout-partner-sdk/redis';
 * const store = new RedisStatusStore({ client: new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 }) });
 * const tracker = createStatusTracker({ client, store, onChange });
 */
export class RedisStatusStore implements StatusStore {
  /** The key prefix in use. */
  readonly prefix: string;
  /** Seconds an ended watch's handled status is kept. */
  readonly retentionSeconds: number;
  readonly #redis: RedisConnection;

  constructor(options: RedisStatusStoreOptions) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`RedisStatusStore options must be an object, got ${typeName(options)}`);
    }
    this.#redis = new RedisConnection(options.client, { owner: 'RedisStatusStore', commandTimeoutMs: options.commandTimeoutMs, redactCauses: false });
    this.prefix = prefixOption(options.prefix, DEFAULT_PREFIX);
    this.retentionSeconds = wholeNumber('retentionSeconds', options.retentionSeconds, DEFAULT_RETENTION_SECONDS);
  }

  async watch(kind: StatusKind, externalId: string, now: number): Promise<void> {
    const member = await this.#member(kind, externalId);
    await this.#redis.script('watch', WATCH, this.#keys(member), [kind, externalId, ms(now), member]);
  }

  async unwatch(kind: StatusKind, externalId: string): Promise<void> {
    const member = await this.#member(kind, externalId);
    await this.#redis.script('unwatch', UNWATCH, this.#keys(member), [String(this.retentionSeconds * 1000), member]);
  }

  async nudge(kind: StatusKind, externalId: string, nudge: { now: number; event?: WebhookEvent | undefined }): Promise<void> {
    const member = await this.#member(kind, externalId);
    const event = nudge.event === undefined ? '' : JSON.stringify(nudge.event);
    await this.#redis.script('nudge', NUDGE, this.#keys(member), [kind, externalId, ms(nudge.now), event, member, String(NUDGE_PRIORITY_MS)]);
  }

  async claimDue(request: ClaimDueRequest): Promise<ClaimedStatusRecord[]> {
    const { now, limit, leaseMs, owner } = request;
    const base = `${owner}:${globalThis.crypto.randomUUID()}`;
    const reply = await this.#redis.script('claim', CLAIM_DUE, [`${this.prefix}due`], [ms(now), String(limit), ms(leaseMs), owner, base, `${this.prefix}r:`]);
    if (!Array.isArray(reply) || reply.length % 2 !== 0) throw unexpected('claim');
    const claimed: ClaimedStatusRecord[] = [];
    for (let i = 0; i < reply.length; i += 2) {
      const fields = hashFields(reply[i + 1]);
      const state = fields === undefined ? undefined : stateOf(fields);
      const token = fields?.get('lt');
      if (state === undefined || token === undefined) throw unexpected('claim');
      claimed.push({ ...state, lease: { kind: state.kind, externalId: state.externalId, owner, token } });
    }
    return claimed;
  }

  async extend(lease: StatusLease, extension: { now: number; leaseMs: number }): Promise<boolean> {
    const member = await this.#leaseMember(lease);
    const reply = await this.#redis.script('extend', EXTEND, this.#keys(member), [lease.token, ms(extension.now + extension.leaseMs), member]);
    return Number(reply) === 1;
  }

  async commit(lease: StatusLease, status: string | null, turn: StatusTurn): Promise<boolean> {
    return this.#endTurn('commit', lease, status, turn);
  }

  async reschedule(lease: StatusLease, turn: StatusTurn): Promise<boolean> {
    return this.#endTurn('reschedule', lease, undefined, turn);
  }

  async release(lease: StatusLease, now: number): Promise<void> {
    const member = await this.#leaseMember(lease);
    await this.#redis.script('release', RELEASE, this.#keys(member), [lease.token, ms(now), member]);
  }

  async get(kind: StatusKind, externalId: string): Promise<StatusRecordState | undefined> {
    const member = await this.#member(kind, externalId);
    const reply = await this.#redis.command('get', ['HGETALL', `${this.prefix}r:${member}`]);
    const fields = hashFields(reply);
    if (fields === undefined) throw unexpected('get');
    return fields.size === 0 ? undefined : stateOf(fields);
  }

  async #endTurn(operation: 'commit' | 'reschedule', lease: StatusLease, status: string | null | undefined, turn: StatusTurn): Promise<boolean> {
    const member = await this.#leaseMember(lease);
    const next = 'delayMs' in turn.next ? 'delay' : turn.next.end;
    const delay = 'delayMs' in turn.next ? ms(turn.next.delayMs) : '0';
    const reply = await this.#redis.script(operation, END_TURN, this.#keys(member), [
      lease.token,
      ms(turn.now),
      operation === 'commit' ? '1' : '0',
      JSON.stringify(status ?? null),
      next,
      delay,
      String(turn.failures),
      String(this.retentionSeconds * 1000),
      member,
      String(NUDGE_PRIORITY_MS),
      turn.keepNudge === true ? '1' : '0',
    ]);
    return Number(reply) === 1;
  }

  async #leaseMember(lease: StatusLease): Promise<string> {
    if (lease === null || typeof lease !== 'object' || typeof lease.token !== 'string') {
      throw new TypeError(`lease must be the lease claimDue returned, got ${typeName(lease)}`);
    }
    return this.#member(lease.kind, lease.externalId);
  }

  /** A record's member in the due index: its kind and its id (hashed when long, as event ids are). */
  async #member(kind: StatusKind, externalId: string): Promise<string> {
    checkKind(kind);
    checkExternalId(externalId);
    return `${kind}:${await eventKeySuffix(externalId)}`;
  }

  #keys(member: string): string[] {
    return [`${this.prefix}due`, `${this.prefix}r:${member}`];
  }
}

function ms(value: number): string {
  return String(Math.ceil(value));
}

function unexpected(operation: 'claim' | 'get'): RedisStoreError {
  return new RedisStoreError(`Redis ${operation} failed: unexpected reply from the status store`, { operation });
}

/** HGETALL's reply as a map: a flat array (RESP2), a plain object or a Map (RESP3). */
function hashFields(reply: unknown): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) {
      const key = replyString(reply[i]);
      const value = replyString(reply[i + 1]);
      if (typeof key !== 'string' || typeof value !== 'string') return undefined;
      fields.set(key, value);
    }
    return fields;
  }
  const entries = reply instanceof Map ? [...reply.entries()] : reply !== null && typeof reply === 'object' ? Object.entries(reply) : undefined;
  if (entries === undefined) return undefined;
  for (const [key, value] of entries) {
    const text = replyString(value);
    if (typeof key !== 'string' || typeof text !== 'string') return undefined;
    fields.set(key, text);
  }
  return fields;
}

/** A record's hash as its state; undefined when it is not one this store wrote. */
function stateOf(fields: Map<string, string>): StatusRecordState | undefined {
  const kind = fields.get('k');
  const externalId = fields.get('id');
  if ((kind !== 'order' && kind !== 'withdrawal') || externalId === undefined) return undefined;
  const state: StatusRecordState = {
    kind,
    externalId,
    watching: fields.get('w') === '1',
    watchedAt: Number(fields.get('wa') ?? 0),
    failures: Number(fields.get('f') ?? 0),
  };
  const handled = fields.get('hs');
  if (handled !== undefined) {
    const status: unknown = JSON.parse(handled);
    state.handled = { status: typeof status === 'string' ? status : null, at: Number(fields.get('ha') ?? 0) };
  }
  const nudgedAt = fields.get('na');
  if (nudgedAt !== undefined) state.nudgedAt = Number(nudgedAt);
  const event = fields.get('ev');
  if (event !== undefined) {
    const parsed: unknown = JSON.parse(event);
    if (parsed !== null && typeof parsed === 'object' && typeof (parsed as { eventId?: unknown }).eventId === 'string') {
      state.event = parsed as WebhookEvent;
    }
  }
  return state;
}
