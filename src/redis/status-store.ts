import { checkOptions } from '../internal/arguments.js';
import { isStatusKind } from '../kinds.js';
import { eventKeySuffix } from '../stores/event-key.js';
import { typeName } from '../internal/type-name.js';
import { quote } from '../internal/quote.js';
import { checkExternalId, checkFoundKey, checkKind, wholeNumber } from '../stores/arguments.js';
import { NUDGE_PRIORITY_MS } from '../stores/status-store.js';
import type {
  LastEvent,
  OverdueRecords,
  ClaimDueRequest,
  ClaimedStatusRecord,
  StatusKind,
  StatusLease,
  StatusRecordState,
  StatusStore,
  StatusTurn,
} from '../stores/status-store.js';
import type { WebhookEvent } from '../webhook-event.js';
import { RedisConnection, replyString, type LuaScript, type RedisClientLike, type WaitForReplicas } from './client.js';
import { RedisStoreError } from './errors.js';
import { prefixOption } from './options.js';
import { CLUSTER_SLOTS, keySlot } from './slot.js';

/** Options of {@link RedisStatusStore}. */
export interface RedisStatusStoreOptions {
  /** An `ioredis` client or `Cluster`, or a connected node-redis client or cluster; the store never connects, quits or configures it. */
  client: RedisClientLike;
  /** Put before every key; trackers that share a prefix (and `shards`) share their records. @default 'checkout-partner-sdk:status:' */
  prefix?: string | undefined;
  /**
   * How many parts the due index is split into, each in a hash slot of its own, so a Cluster spreads records and claims over its
   * masters; each costs a script per claim, so a few times the masters is enough. Fixed for a prefix: change both or find nothing.
   * @default 1 on a single Redis, 16 on a Cluster
   */
  shards?: number | undefined;
  /** How long an ended watch's handled status is kept, in seconds, for replayed events. @default 2_592_000 (30 days) */
  retentionSeconds?: number | undefined;
  /** How long one store operation may take, in milliseconds, before it rejects with `RedisStoreError`. @default 5_000 */
  commandTimeoutMs?: number | undefined;
  /**
   * Accept a `maxmemory-policy` other than `noeviction` (refused at first use): an evicted record hands a change over twice, or never.
   * @default false
   */
  allowEvictingServer?: boolean | undefined;
  /**
   * After each `commit`, wait for this many replicas, since a failover may lose what only the master has and hand a change over
   * again; too few in time: `commit` rejects and the tracker retries it while the lease holds.
   * @default undefined (no wait)
   */
  waitForReplicas?: WaitForReplicas | undefined;
}

const DEFAULT_PREFIX = 'checkout-partner-sdk:status:';
const DEFAULT_RETENTION_SECONDS = 30 * 24 * 60 * 60;
const DEFAULT_CLUSTER_SHARDS = 16;
const MAX_SHARDS = 1024;

/** The server's clock in milliseconds: every time the store records. */
const NOW = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/** Due at the lease's end while a live lease holds the record, else now. */
const DUE_NOW_OR_LEASE_END = `local at = now
local lu = tonumber(redis.call('HGET', KEYS[2], 'lu') or '0')
if redis.call('HEXISTS', KEYS[2], 'lt') == 1 and lu > now then at = lu end`;

/** ARGV: kind, id, member. A watched record keeps its schedule; otherwise a watch starts now, its read owed now. */
const WATCH: LuaScript = {
  source: `${NOW}
if redis.call('HGET', KEYS[2], 'w') == '1' then return 0 end
redis.call('HSET', KEYS[2], 'k', ARGV[1], 'id', ARGV[2], 'w', '1', 'wa', now)
redis.call('ZADD', KEYS[3], now, ARGV[3])
redis.call('HSETNX', KEYS[2], 'f', '0')
redis.call('HSETNX', KEYS[2], 'ns', '0')
redis.call('PERSIST', KEYS[2])
${DUE_NOW_OR_LEASE_END}
redis.call('ZADD', KEYS[1], at, ARGV[3])
return 1`,
};

/**
 * KEYS: due, record, owed, the part's last-event key. ARGV: kind, id, event JSON ('' for none), member, priority ms. A read is owed
 * now unless owed earlier; due `priority ms` before now unless a live lease holds it or its last turn failed.
 */
const NUDGE: LuaScript = {
  source: `${NOW}
local owed = redis.call('ZSCORE', KEYS[3], ARGV[4])
if redis.call('HGET', KEYS[2], 'w') ~= '1' or not owed or tonumber(owed) > now then redis.call('ZADD', KEYS[3], now, ARGV[4]) end
redis.call('HSET', KEYS[2], 'k', ARGV[1], 'id', ARGV[2], 'na', now)
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[2], 'ev', ARGV[3])
  redis.call('SET', KEYS[4], now)
end
redis.call('HINCRBY', KEYS[2], 'ns', 1)
redis.call('HSETNX', KEYS[2], 'f', '0')
local leased = redis.call('HEXISTS', KEYS[2], 'lt') == 1 and tonumber(redis.call('HGET', KEYS[2], 'lu') or '0') > now
if redis.call('HGET', KEYS[2], 'w') ~= '1' then
  redis.call('HSET', KEYS[2], 'w', '1', 'wa', now)
  redis.call('PERSIST', KEYS[2])
  if leased then
    -- unwatched during a live lease: due when it ends, never claimable beside it
    redis.call('ZADD', KEYS[1], redis.call('HGET', KEYS[2], 'lu'), ARGV[4])
    return 1
  end
elseif (leased or redis.call('HGET', KEYS[2], 'f') ~= '0') and redis.call('ZSCORE', KEYS[1], ARGV[4]) then
  -- a live lease's end of turn decides; after a failed turn the back-off holds (the event is kept for the next read)
  return 1
end
redis.call('ZADD', KEYS[1], now - tonumber(ARGV[5]), ARGV[4])
return 1`,
};

/** ARGV: retention ms, member. */
const UNWATCH: LuaScript = {
  source: `if redis.call('HGET', KEYS[2], 'w') ~= '1' then return 0 end
redis.call('HSET', KEYS[2], 'w', '0')
redis.call('HDEL', KEYS[2], 'na', 'ev')
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1`,
};

/** KEYS: a due index. ARGV: limit. Replies member, due time, … of the records due by the server's now, earliest first. */
const PEEK_DUE: LuaScript = {
  source: `${NOW}
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[1]))`,
};

/**
 * KEYS: the due index. ARGV: limit, lease ms, owner, token base, key base ('r:' + member: a record, 'o:' + owner: its lease set).
 * A record with no owed read (written before 1.1) owes it since it was due or nudged. Replies now, then member, due time, HGETALL, …
 */
const CLAIM_DUE: LuaScript = {
  source: `${NOW}
local leaseEnd = now + tonumber(ARGV[2])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[1]))
local out = {string.format('%d', now)}
for i = 1, #due, 2 do
  local m = due[i]
  local rec = ARGV[5] .. 'r:' .. m
  if redis.call('HGET', rec, 'w') ~= '1' then
    redis.call('ZREM', KEYS[1], m)
    redis.call('ZREM', ARGV[5] .. 'owed', m)
  else
    if not redis.call('ZSCORE', ARGV[5] .. 'owed', m) then
      redis.call('ZADD', ARGV[5] .. 'owed', math.max(tonumber(due[i + 1]), tonumber(redis.call('HGET', rec, 'na') or '0')), m)
    end
    local previous = redis.call('HGET', rec, 'lo')
    if previous and previous ~= ARGV[3] then redis.call('SREM', ARGV[5] .. 'o:' .. previous, m) end
    redis.call('HSET', rec, 'lt', ARGV[4] .. ':' .. i, 'lo', ARGV[3], 'lu', string.format('%d', leaseEnd), 'ls', redis.call('HGET', rec, 'ns') or '0')
    redis.call('SADD', ARGV[5] .. 'o:' .. ARGV[3], m)
    redis.call('ZADD', KEYS[1], leaseEnd, m)
    out[#out + 1] = m
    out[#out + 1] = due[i + 1]
    out[#out + 1] = redis.call('HGETALL', rec)
  end
end
return out`,
};

/** ARGV: token, lease ms, member. */
const EXTEND: LuaScript = {
  source: `if redis.call('HGET', KEYS[2], 'lt') ~= ARGV[1] then return 0 end
${NOW}
local leaseEnd = string.format('%d', now + tonumber(ARGV[2]))
redis.call('HSET', KEYS[2], 'lu', leaseEnd)
if redis.call('HGET', KEYS[2], 'w') == '1' then redis.call('ZADD', KEYS[1], leaseEnd, ARGV[3]) end
return 1`,
};

/** Ends the lease held in KEYS[2], leaving its owner's set. */
const DROP_LEASE = (
  member: string,
  base: string,
) => `redis.call('SREM', ${base} .. 'o:' .. (redis.call('HGET', KEYS[2], 'lo') or ''), ${member})
redis.call('HDEL', KEYS[2], 'lt', 'lo', 'lu', 'ls')`;

/**
 * ARGV: token, commit ('1'), status JSON, next ('delay' | 'final' | 'max-age' | 'not-found'), delay ms, failures, retention ms,
 * nudge priority ms, member, keep nudge ('1'), key base, missed ('1'). A commit keeps its token (`ct`): retried, it answers 2.
 */
const END_TURN: LuaScript = {
  source: `if redis.call('HGET', KEYS[2], 'lt') ~= ARGV[1] then
  -- a commit retried after its first try was recorded (its reply or its WAIT failed): recorded
  if ARGV[2] == '1' and redis.call('HGET', KEYS[2], 'ct') == ARGV[1] then return 2 end
  return 0
end
${NOW}
local nudged = redis.call('HGET', KEYS[2], 'ns') ~= redis.call('HGET', KEYS[2], 'ls')
if ARGV[2] == '1' then
  local ha = math.max(now, tonumber(redis.call('HGET', KEYS[2], 'ha') or '0') + 1)
  redis.call('HSET', KEYS[2], 'hs', ARGV[3], 'ha', string.format('%d', ha), 'ct', ARGV[1])
  if not nudged and ARGV[10] ~= '1' then redis.call('HDEL', KEYS[2], 'na', 'ev') end
end
redis.call('HSET', KEYS[2], 'f', ARGV[6])
${DROP_LEASE('ARGV[9]', 'ARGV[11]')}
if redis.call('HGET', KEYS[2], 'w') ~= '1' then
  redis.call('ZREM', KEYS[1], ARGV[9])
  redis.call('ZREM', KEYS[3], ARGV[9])
  return 1
end
if ARGV[6] == '0' and ARGV[12] ~= '1' then
  local owed = now
  if not nudged and ARGV[4] == 'delay' then owed = now + tonumber(ARGV[5]) end
  redis.call('ZADD', KEYS[3], owed, ARGV[9])
end
if nudged and ARGV[6] == '0' then
  redis.call('ZADD', KEYS[1], now - tonumber(ARGV[8]), ARGV[9])
  return 1
end
if ARGV[4] == 'delay' then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[5]), ARGV[9])
  return 1
end
redis.call('HSET', KEYS[2], 'w', '0')
redis.call('HDEL', KEYS[2], 'na', 'ev')
redis.call('ZREM', KEYS[1], ARGV[9])
redis.call('ZREM', KEYS[3], ARGV[9])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return 1`,
};

/** ARGV: token, member, key base. */
const RELEASE: LuaScript = {
  source: `if redis.call('HGET', KEYS[2], 'lt') ~= ARGV[1] then return 0 end
${NOW}
${DROP_LEASE('ARGV[2]', 'ARGV[3]')}
if redis.call('HGET', KEYS[2], 'w') == '1' then redis.call('ZADD', KEYS[1], now, ARGV[2]) end
return 1`,
};

/** KEYS: the due index, the owner's lease set. ARGV: owner, key base. Ends the owner's leases; replies how many were live. */
const RECLAIM: LuaScript = {
  source: `${NOW}
local ended = 0
for _, m in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local rec = ARGV[2] .. 'r:' .. m
  if redis.call('HGET', rec, 'lo') == ARGV[1] and redis.call('HEXISTS', rec, 'lt') == 1 then
    if tonumber(redis.call('HGET', rec, 'lu') or '0') > now then ended = ended + 1 end
    redis.call('HDEL', rec, 'lt', 'lo', 'lu', 'ls')
    if redis.call('HGET', rec, 'w') == '1' then redis.call('ZADD', KEYS[1], now, m) end
  end
end
redis.call('DEL', KEYS[2])
return ended`,
};

/** KEYS: an owed index. Replies now, how many reads were owed before now, and the earliest owed time ('' for none). */
const OVERDUE: LuaScript = {
  source: `${NOW}
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {string.format('%d', now), redis.call('ZCOUNT', KEYS[1], '-inf', string.format('(%d', now)), first[2] or ''}`,
};

/** KEYS: a part's last-event key. Replies now and when the last event came ('' for none). */
const LAST_EVENT: LuaScript = {
  source: `${NOW}
return {string.format('%d', now), redis.call('GET', KEYS[1]) or ''}`,
};

/** One part's keys: its due index, its owed index (scored by when a successful read is owed), and the base of its other keys. */
interface Part {
  due: string;
  owed: string;
  base: string;
}

const REDIS_STATUS_STORE_OPTIONS = [
  'client',
  'prefix',
  'shards',
  'retentionSeconds',
  'commandTimeoutMs',
  'allowEvictingServer',
  'waitForReplicas',
] as const satisfies readonly (keyof RedisStatusStoreOptions)[];

/**
 * A {@link StatusStore} in Redis 5+ (whose scripts may read `TIME`): a hash per record, sorted sets of due times, each lease check
 * one Lua script. Every time is the server's; on a Cluster a record's part stays on one master, so its times stay on one clock.
 * Durable as far as Redis persists (`appendonly yes`) and replicates (`waitForReplicas`).
 */
export class RedisStatusStore implements StatusStore {
  /** The key prefix in use. */
  readonly prefix: string;
  /** Seconds an ended watch's handled status is kept. */
  readonly retentionSeconds: number;
  /** How many parts the due index is split into. */
  readonly shards: number;
  readonly #redis: RedisConnection;
  readonly #parts: readonly Part[];

  constructor(options: RedisStatusStoreOptions) {
    checkOptions('RedisStatusStore', options, REDIS_STATUS_STORE_OPTIONS);
    this.#redis = new RedisConnection(options.client, {
      owner: 'RedisStatusStore',
      commandTimeoutMs: options.commandTimeoutMs,
      redactCauses: false,
      allowEvictingServer: options.allowEvictingServer,
      waitForReplicas: options.waitForReplicas,
    });
    this.prefix = prefixOption(options.prefix, DEFAULT_PREFIX);
    this.retentionSeconds = wholeNumber('retentionSeconds', options.retentionSeconds, DEFAULT_RETENTION_SECONDS);
    this.shards = wholeNumber('shards', options.shards, this.#redis.cluster ? DEFAULT_CLUSTER_SHARDS : 1);
    if (this.shards > MAX_SHARDS) throw new TypeError(`shards must be at most ${MAX_SHARDS}, got ${this.shards}`);
    this.#parts = partsOf(this.prefix, this.shards, this.#redis.cluster);
  }

  async watch(kind: StatusKind, externalId: string): Promise<void> {
    const member = await this.#member(kind, externalId);
    await this.#redis.script('watch', WATCH, this.#keys(member), [kind, externalId, member]);
  }

  async unwatch(kind: StatusKind, externalId: string): Promise<void> {
    const member = await this.#member(kind, externalId);
    await this.#redis.script('unwatch', UNWATCH, this.#keys(member), [String(this.retentionSeconds * 1000), member]);
  }

  async nudge(kind: StatusKind, externalId: string, nudge: { event?: WebhookEvent | undefined }): Promise<void> {
    const member = await this.#member(kind, externalId);
    const event = nudge?.event === undefined ? '' : JSON.stringify(nudge.event);
    const keys = [...this.#keys(member), `${this.#part(member).base}last-event`];
    await this.#redis.script('nudge', NUDGE, keys, [kind, externalId, event, member, String(NUDGE_PRIORITY_MS)]);
  }

  async claimDue(request: ClaimDueRequest): Promise<ClaimedStatusRecord[]> {
    const { limit, leaseMs, owner } = request;
    if (!Number.isSafeInteger(limit) || limit < 1) throw new TypeError(`limit must be a whole number ≥ 1, got ${quote(limit)}`);
    if (typeof owner !== 'string' || owner === '') throw new TypeError(`owner must be a non-empty string, got ${typeName(owner)}`);
    const lease = durationMs('leaseMs', leaseMs);
    if (this.#parts.length === 1) return this.#claimPart(this.#parts[0]!, limit, lease, owner);
    // merged by due time across masters: a clock error of a few milliseconds only reorders records due that close
    const peeks = await Promise.all(
      this.#parts.map(async (part, index) => {
        const reply = await this.#redis.script('claim', PEEK_DUE, [part.due], [String(limit)]);
        if (!Array.isArray(reply) || reply.length % 2 !== 0) throw unexpected('claim');
        const due: { index: number; at: number }[] = [];
        for (let i = 0; i < reply.length; i += 2) due.push({ index, at: Number(replyString(reply[i + 1])) });
        return due;
      }),
    );
    const counts = new Map<number, number>();
    for (const { index } of peeks
      .flat()
      .sort((a, b) => a.at - b.at)
      .slice(0, limit))
      counts.set(index, (counts.get(index) ?? 0) + 1);
    const claimed = await Promise.all([...counts].map(([index, count]) => this.#claimPart(this.#parts[index]!, count, lease, owner)));
    return claimed.flat().sort((a, b) => (a.dueAt ?? a.claimedAt) - (b.dueAt ?? b.claimedAt));
  }

  async #claimPart(part: Part, limit: number, leaseMs: string, owner: string): Promise<ClaimedStatusRecord[]> {
    const base = `${owner}:${globalThis.crypto.randomUUID()}`;
    const reply = await this.#redis.script('claim', CLAIM_DUE, [part.due], [String(limit), leaseMs, owner, base, part.base]);
    if (!Array.isArray(reply) || reply.length % 3 !== 1) throw unexpected('claim');
    const claimedAt = Number(replyString(reply[0]));
    if (!Number.isSafeInteger(claimedAt)) throw unexpected('claim');
    const claimed: ClaimedStatusRecord[] = [];
    for (let i = 1; i < reply.length; i += 3) {
      const fields = hashFields(reply[i + 2]);
      const state = fields === undefined ? undefined : stateOf(fields);
      const token = fields?.get('lt');
      if (state === undefined || token === undefined) throw unexpected('claim');
      const dueAt = Number(replyString(reply[i + 1]));
      claimed.push({
        ...state,
        lease: { kind: state.kind, externalId: state.externalId, owner, token },
        claimedAt,
        ...(Number.isFinite(dueAt) ? { dueAt } : {}),
      });
    }
    return claimed;
  }

  async countWatched(): Promise<number> {
    // the due index holds exactly the watched records
    const counts = await Promise.all(
      this.#parts.map(async (part) => {
        const reply = Number(await this.#redis.command('count', ['ZCARD', part.due]));
        if (!Number.isSafeInteger(reply))
          throw new RedisStoreError('Redis count failed: unexpected reply from the status store', { operation: 'count' });
        return reply;
      }),
    );
    return counts.reduce((total, count) => total + count, 0);
  }

  async overdue(): Promise<OverdueRecords> {
    const parts = await Promise.all(
      this.#parts.map(async (part) => {
        const reply = await this.#redis.script('count', OVERDUE, [part.owed], []);
        if (!Array.isArray(reply) || reply.length !== 3) throw unexpected('count');
        const now = Number(replyString(reply[0]));
        const count = Number(reply[1]);
        const first = replyString(reply[2]);
        if (!Number.isSafeInteger(now) || !Number.isSafeInteger(count)) throw unexpected('count');
        const oldestMs = count > 0 && first !== '' ? Math.max(0, now - Number(first)) : 0;
        return { count, oldestMs: Number.isFinite(oldestMs) ? oldestMs : 0 };
      }),
    );
    return {
      count: parts.reduce((total, part) => total + part.count, 0),
      oldestMs: parts.reduce((oldest, part) => Math.max(oldest, part.oldestMs), 0),
    };
  }

  async lastEvent(): Promise<LastEvent | undefined> {
    const parts = await Promise.all(
      this.#parts.map(async (part) => {
        const reply = await this.#redis.script('count', LAST_EVENT, [`${part.base}last-event`], []);
        if (!Array.isArray(reply) || reply.length !== 2) throw unexpected('count');
        const now = Number(replyString(reply[0]));
        const at = replyString(reply[1]);
        if (!Number.isSafeInteger(now)) throw unexpected('count');
        return at === '' || !Number.isSafeInteger(Number(at)) ? undefined : { at: Number(at), ageMs: Math.max(0, now - Number(at)) };
      }),
    );
    let latest: LastEvent | undefined;
    for (const part of parts) if (part !== undefined && (latest === undefined || part.at > latest.at)) latest = part;
    return latest;
  }

  async extend(lease: StatusLease, extension: { leaseMs: number }): Promise<boolean> {
    const member = await this.#leaseMember(lease);
    const reply = await this.#redis.script('extend', EXTEND, this.#keys(member), [
      lease.token,
      durationMs('leaseMs', extension?.leaseMs),
      member,
    ]);
    return Number(reply) === 1;
  }

  async commit(lease: StatusLease, status: string | null, turn: StatusTurn): Promise<boolean> {
    return this.#endTurn('commit', lease, status, turn);
  }

  async reschedule(lease: StatusLease, turn: StatusTurn): Promise<boolean> {
    return this.#endTurn('reschedule', lease, undefined, turn);
  }

  async release(lease: StatusLease): Promise<void> {
    const member = await this.#leaseMember(lease);
    const part = this.#part(member);
    await this.#redis.script('release', RELEASE, [part.due, `${part.base}r:${member}`], [lease.token, member, part.base]);
  }

  async reclaim(owner: string): Promise<number> {
    if (typeof owner !== 'string' || owner === '') throw new TypeError(`owner must be a non-empty string, got ${typeName(owner)}`);
    const ended = await Promise.all(
      this.#parts.map(async (part) => {
        const reply = Number(await this.#redis.script('reclaim', RECLAIM, [part.due, `${part.base}o:${owner}`], [owner, part.base]));
        if (!Number.isSafeInteger(reply))
          throw new RedisStoreError('Redis reclaim failed: unexpected reply from the status store', { operation: 'reclaim' });
        return reply;
      }),
    );
    return ended.reduce((total, count) => total + count, 0);
  }

  async get(kind: StatusKind, externalId: string): Promise<StatusRecordState | undefined> {
    const member = await this.#member(kind, externalId);
    const reply = await this.#redis.command('get', ['HGETALL', this.#keys(member)[1]]);
    const fields = hashFields(reply);
    if (fields === undefined) throw unexpected('get');
    return fields.size === 0 ? undefined : stateOf(fields);
  }

  /** Keeps `key` for `retentionSeconds` from the read that last revealed it, for every tracker sharing the store. */
  async rememberKey(kind: StatusKind, externalId: string, key: string): Promise<void> {
    checkExternalId(externalId);
    await this.#redis.command('rememberKey', ['SET', await this.#foundKey(kind, key), externalId, 'EX', String(this.retentionSeconds)]);
  }

  async findByKey(kind: StatusKind, key: string): Promise<string | undefined> {
    const reply = replyString(await this.#redis.command('findByKey', ['GET', await this.#foundKey(kind, key)]));
    return typeof reply === 'string' && reply !== '' ? reply : undefined;
  }

  /** In the part the key's own member hashes to: the lookup knows only the key. */
  async #foundKey(kind: StatusKind, key: string): Promise<string> {
    checkKind(kind);
    checkFoundKey(key);
    const member = `${kind}:${await eventKeySuffix(key)}`;
    return `${this.#part(member).base}key:${member}`;
  }

  async #endTurn(
    operation: 'commit' | 'reschedule',
    lease: StatusLease,
    status: string | null | undefined,
    turn: StatusTurn,
  ): Promise<boolean> {
    const member = await this.#leaseMember(lease);
    const next = 'delayMs' in turn.next ? 'delay' : turn.next.end;
    const delay = 'delayMs' in turn.next ? ms(turn.next.delayMs) : '0';
    const keys = this.#keys(member);
    const reply = await this.#redis.script(operation, END_TURN, keys, [
      lease.token,
      operation === 'commit' ? '1' : '0',
      JSON.stringify(status ?? null),
      next,
      delay,
      String(turn.failures),
      String(this.retentionSeconds * 1000),
      String(NUDGE_PRIORITY_MS),
      member,
      turn.keepNudge === true ? '1' : '0',
      this.#part(member).base,
      turn.missed === true ? '1' : '0',
    ]);
    // 2: an earlier try recorded this commit (its reply or WAIT failed)
    const recorded = Number(reply) === 1 || Number(reply) === 2;
    if (recorded && operation === 'commit') await this.#redis.replicated('commit', keys[1]);
    return recorded;
  }

  async #leaseMember(lease: StatusLease): Promise<string> {
    if (lease === null || typeof lease !== 'object' || typeof lease.token !== 'string') {
      throw new TypeError(`lease must be the lease claimDue returned, got ${typeName(lease)}`);
    }
    return this.#member(lease.kind, lease.externalId);
  }

  async #member(kind: StatusKind, externalId: string): Promise<string> {
    checkKind(kind);
    checkExternalId(externalId);
    return `${kind}:${await eventKeySuffix(externalId)}`;
  }

  #part(member: string): Part {
    return this.#parts.length === 1 ? this.#parts[0]! : this.#parts[fnv1a(member) % this.#parts.length]!;
  }

  /** The due index of the record's part, the record's hash, and the part's owed index (one slot). */
  #keys(member: string): [string, string, string] {
    const part = this.#part(member);
    return [part.due, `${part.base}r:${member}`, part.owed];
  }
}

/** Part n's keys carry a hash tag in the n-th of `count` slot ranges, so parts spread over masters that own ranges of slots. */
function partsOf(prefix: string, count: number, cluster: boolean): Part[] {
  if (count === 1 && !cluster) return [{ due: `${prefix}due`, owed: `${prefix}owed`, base: prefix }];
  // part n's tag: the first whole number whose slot falls in the n-th range
  const tags = new Array<string | undefined>(count);
  let missing = count;
  for (let k = 0; missing > 0 && k < 10_000_000; k += 1) {
    const tag = String(k);
    const range = Math.floor((keySlot(`{${tag}}`) * count) / CLUSTER_SLOTS);
    if (tags[range] === undefined) {
      tags[range] = tag;
      missing -= 1;
    }
  }
  if (missing > 0) throw new Error(`no hash tag found for ${missing} of ${count} parts`); // never: CRC16 spreads decimal strings
  return tags.map((tag) => {
    const base = `${prefix}{${tag}}`;
    return { due: `${base}due`, owed: `${base}owed`, base };
  });
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function ms(value: number): string {
  return String(Math.ceil(value));
}

function durationMs(name: string, value: unknown): string {
  if (typeof value !== 'number' || !(value > 0) || value > Number.MAX_SAFE_INTEGER) {
    throw new TypeError(`${name} must be a positive number of milliseconds, got ${quote(value)}`);
  }
  return ms(value);
}

function unexpected(operation: 'claim' | 'get' | 'count'): RedisStoreError {
  return new RedisStoreError(`Redis ${operation} failed: unexpected reply from the status store`, { operation });
}

/** HGETALL's reply: a flat array (RESP2), a plain object or a Map (RESP3). */
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
  const entries =
    reply instanceof Map ? [...reply.entries()] : reply !== null && typeof reply === 'object' ? Object.entries(reply) : undefined;
  if (entries === undefined) return undefined;
  for (const [key, value] of entries) {
    const text = replyString(value);
    if (typeof key !== 'string' || typeof text !== 'string') return undefined;
    fields.set(key, text);
  }
  return fields;
}

function stateOf(fields: Map<string, string>): StatusRecordState | undefined {
  const kind = fields.get('k');
  const externalId = fields.get('id');
  if (!isStatusKind(kind) || externalId === undefined) return undefined;
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
