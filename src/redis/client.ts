import { MAX_TIMER_MS, timerMs } from '../internal/arguments.js';
import { typeName } from '../internal/type-name.js';
import { toHex } from '../internal/hex.js';
import { escapeControl, quote } from '../internal/quote.js';
import { RedisStoreError, type RedisStoreOperation } from './errors.js';
import { keySlot } from './slot.js';

/** The part of an [ioredis](https://github.com/redis/ioredis) client (v5 or later, `Redis` or `Cluster`) the Redis stores use. */
export interface IoRedisClientLike {
  /** Runs a raw command, e.g. `call('GET', key)` (a `Cluster` routes it by its key). */
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** The part of a connected [node-redis](https://github.com/redis/node-redis) client (`redis` v4 or later) the Redis stores use. */
export interface NodeRedisClientLike {
  /** Runs a raw command, e.g. `sendCommand(['GET', key])`. */
  sendCommand(args: string[]): Promise<unknown>;
}

/** The part of a connected node-redis cluster (`createCluster`) the Redis stores use. */
export interface NodeRedisClusterLike {
  /** Runs a raw command, routed by `firstKey`. */
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  /** The cluster's masters. */
  readonly masters: readonly unknown[];
  /** The client of one node (from `masters` or `getSlotMaster`): to read its eviction policy, to `WAIT` on it. */
  nodeClient(node: never): unknown;
  /** The master that serves `slot`. */
  getSlotMaster(slot: number): unknown;
}

/** An `ioredis` client or `Cluster`, or a connected node-redis client or cluster (`redis` package). */
export type RedisClientLike = IoRedisClientLike | NodeRedisClientLike | NodeRedisClusterLike;

/** Wait for replicas before a write counts as recorded: `WAIT` on the connection that wrote it (Redis 3.0+), which holds it meanwhile. */
export interface WaitForReplicas {
  /** How many replicas must acknowledge the write (at least 1). */
  replicas: number;
  /** How long to wait for them, in milliseconds (at least 1: `WAIT` with 0 waits forever). */
  timeoutMs: number;
}

export interface LuaScript {
  readonly source: string;
  sha?: Promise<string>;
}

/** ARGV: the owner's token. Deletes the key only while it holds that token. */
export const DELETE_IF_OWNER: LuaScript = {
  source: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
};

const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

const SAFE_POLICY = 'noeviction';

export interface RedisConnectionOptions {
  owner: string;
  commandTimeoutMs: unknown;
  /** An ioredis error holds the command's arguments: the token store passes on a copy without them. */
  redactCauses: boolean;
  allowEvictingServer: unknown;
  waitForReplicas?: unknown;
}

/** The one place that talks to either client: commands, scripts, timeouts, errors, the eviction-policy check, `WAIT`. */
export class RedisConnection {
  readonly cluster: boolean;
  readonly waitForReplicas: WaitForReplicas | undefined;
  readonly #owner: string;
  readonly #transport: Transport;
  readonly #timeoutMs: number;
  readonly #redactCauses: boolean;
  readonly #checkPolicy: boolean;
  /** The eviction-policy check, cleared when it fails so that the next use checks again. */
  #policy: Promise<void> | undefined;

  constructor(client: unknown, options: RedisConnectionOptions) {
    this.#owner = options.owner;
    this.#transport = transport(client, options.owner);
    this.cluster = this.#transport.cluster;
    // at most what a timer holds: a longer one fires at once
    this.#timeoutMs = timerMs('commandTimeoutMs', options.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS);
    this.#redactCauses = options.redactCauses;
    if (options.allowEvictingServer !== undefined && typeof options.allowEvictingServer !== 'boolean') {
      throw new TypeError(`${options.owner}: allowEvictingServer must be a boolean, got ${typeName(options.allowEvictingServer)}`);
    }
    this.#checkPolicy = options.allowEvictingServer !== true;
    this.waitForReplicas = waitOption(options.owner, options.waitForReplicas);
  }

  command(operation: RedisStoreOperation, args: string[]): Promise<unknown> {
    return this.#guard(operation, this.#timeoutMs, () => this.#call(args));
  }

  script(operation: RedisStoreOperation, script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    return this.#guard(operation, this.#timeoutMs, async () => {
      const tail = [String(keys.length), ...keys, ...args];
      script.sha ??= sha1Hex(script.source);
      try {
        return await this.#call(['EVALSHA', await script.sha, ...tail]);
      } catch (error) {
        if (!isNoScript(error)) throw error;
        return this.#call(['EVAL', script.source, ...tail]);
      }
    });
  }

  /** With `waitForReplicas`, `WAIT`s on the connection that wrote `key`; too few replicas: rejects (the write stays on the master). */
  async replicated(operation: RedisStoreOperation, key: string): Promise<void> {
    const wait = this.waitForReplicas;
    if (wait === undefined) return;
    const args = ['WAIT', String(wait.replicas), String(wait.timeoutMs)];
    const reply = await this.#guard(operation, Math.min(MAX_TIMER_MS, this.#timeoutMs + wait.timeoutMs), async () => {
      const answer = this.#transport.waitAfter(key, args);
      if (!isThenable(answer)) throw notAPromise();
      return answer;
    });
    const acknowledged = Number(reply);
    if (!Number.isSafeInteger(acknowledged)) {
      throw new RedisStoreError(`Redis ${operation} failed: unexpected reply to WAIT`, { operation });
    }
    if (acknowledged < wait.replicas) {
      throw new RedisStoreError(
        `Redis ${operation} failed: the write reached the master, but only ${acknowledged} of the ${wait.replicas} replicas ` +
          `asked for (waitForReplicas) acknowledged it within ${wait.timeoutMs} ms, so it is not reported as recorded ` +
          '(a failover now could lose it)',
        { operation },
      );
    }
  }

  async #call(args: string[]): Promise<unknown> {
    const reply = this.#transport.send(args);
    if (!isThenable(reply)) throw notAPromise();
    return reply;
  }

  async #guard<T>(operation: RedisStoreOperation, timeoutMs: number, run: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new RedisStoreError(`Redis ${operation} timed out after ${timeoutMs} ms`, { operation }));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.#evictionChecked(operation).then(run), timeout]);
    } catch (error) {
      if (error instanceof RedisStoreError) throw error;
      throw new RedisStoreError(`Redis ${operation} failed: ${reason(error)}`, { operation, cause: this.#cause(error) });
    } finally {
      clearTimeout(timer);
    }
  }

  #cause(error: unknown): unknown {
    return this.#redactCauses ? redacted(error) : error;
  }

  #evictionChecked(operation: RedisStoreOperation): Promise<void> {
    if (!this.#checkPolicy) return Promise.resolve();
    this.#policy ??= this.#readPolicies(operation).catch((error: unknown) => {
      this.#policy = undefined;
      throw error;
    });
    return this.#policy;
  }

  async #readPolicies(operation: RedisStoreOperation): Promise<void> {
    const optOut = 'allowEvictingServer: true skips this check';
    let masters: Master[];
    let replies: unknown[];
    try {
      masters = await this.#transport.masters();
      if (masters.length === 0) throw new Error('the cluster reported no master');
      replies = await Promise.all(
        masters.map(async (master) => {
          const reply = master.send(['INFO', 'memory']);
          if (!isThenable(reply)) throw notAPromise();
          return reply;
        }),
      );
    } catch (error) {
      throw new RedisStoreError(
        `Redis ${operation} failed: ${this.#owner} could not read the server's maxmemory-policy (INFO memory: ${reason(error)}); ` +
          `allow INFO for this Redis user, or, if you know the server never evicts, ${optOut}`,
        { operation, cause: this.#cause(error) },
      );
    }
    for (const [index, reply] of replies.entries()) {
      const where = masters[index]?.name;
      const at = where === undefined ? '' : ` on ${where}`;
      const policy = /^maxmemory_policy:([^\r\n]*)/m.exec(replyString(reply) ?? '')?.[1]?.trim();
      if (policy === undefined) {
        throw new RedisStoreError(
          `Redis ${operation} failed: ${this.#owner} found no maxmemory_policy in INFO memory${at}, so it cannot tell whether ` +
            `the server evicts keys; if you know it never does, ${optOut}`,
          { operation },
        );
      }
      if (policy !== SAFE_POLICY) {
        throw new RedisStoreError(
          `Redis ${operation} failed: ${this.#owner} refuses a server whose maxmemory-policy is ${escapeControl(policy)}${at}: ` +
            'when memory runs out it evicts keys, and an evicted key silently hands a change or an event over again. ' +
            `Set maxmemory-policy ${SAFE_POLICY} (a full Redis then refuses writes loudly and the SDK retries), or give the ` +
            `SDK a Redis of its own; ${optOut} (accepting that risk)`,
          { operation },
        );
      }
    }
  }
}

interface Master {
  send(args: string[]): unknown;
  name: string | undefined;
}

interface Transport {
  cluster: boolean;
  send(args: string[]): unknown;
  masters(): Promise<Master[]>;
  waitAfter(key: string, args: string[]): unknown;
}

/** A bulk string reply, which some client settings give as bytes. */
export function replyString(reply: unknown): string | null | undefined {
  if (reply === null) return null;
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  return undefined;
}

type Fn = (...args: unknown[]) => unknown;

function transport(client: unknown, owner: string): Transport {
  const expected =
    `${owner}: client must be an ioredis client or Cluster (with call()) or a connected node-redis client or cluster ` +
    `(with sendCommand()), got`;
  if (client === null || typeof client !== 'object') throw new TypeError(`${expected} ${typeName(client)}`);
  const candidate = client as Partial<
    Record<'call' | 'sendCommand' | 'getSlotMaster' | 'nodes' | 'isCluster' | 'pipeline' | 'nodeClient' | 'masters', unknown>
  >;
  if (typeof candidate.call === 'function') {
    const call = candidate.call as Fn;
    const send = (args: string[]) => call.call(client, ...args);
    if (candidate.isCluster === true && typeof candidate.nodes === 'function' && typeof candidate.pipeline === 'function') {
      const nodes = candidate.nodes as Fn;
      const pipeline = candidate.pipeline as Fn;
      return {
        cluster: true,
        send,
        async masters() {
          // the slots are known once the cluster is ready, which a command waits for
          await send(['PING']);
          const list = nodes.call(client, 'master');
          if (!Array.isArray(list)) throw new Error('Cluster.nodes("master") did not return a list');
          return list.map((node: { call: Fn; options?: { host?: unknown; port?: unknown } }) => ({
            send: (args: string[]) => node.call(...args),
            name: address(node.options?.host, node.options?.port),
          }));
        },
        async waitAfter(key, args) {
          // a pipeline goes to the master of its keys' slot: the connection that wrote `key`
          const run = pipeline.call(client, [['exists', key], args.map((arg, i) => (i === 0 ? arg.toLowerCase() : arg))]) as {
            exec(): Promise<unknown>;
          };
          const replies = await run.exec();
          const last = Array.isArray(replies) ? (replies[1] as unknown) : undefined;
          if (!Array.isArray(last)) throw new Error('unexpected reply to the WAIT pipeline');
          if (last[0] !== null && last[0] !== undefined) throw last[0];
          return last[1] as unknown;
        },
      };
    }
    return { cluster: false, send, masters: async () => [{ send, name: undefined }], waitAfter: (_key, args) => send(args) };
  }
  if (typeof candidate.sendCommand === 'function') {
    const sendCommand = candidate.sendCommand as Fn;
    if (typeof candidate.getSlotMaster === 'function') {
      const nodeClient = candidate.nodeClient as Fn | undefined;
      const slotMaster = candidate.getSlotMaster as Fn;
      if (typeof nodeClient !== 'function') {
        throw new TypeError(`${owner}: this node-redis cluster client has no nodeClient(): use the redis package v4 or later`);
      }
      const send = (args: string[]) => sendCommand.call(client, firstKey(args), false, args);
      return {
        cluster: true,
        send,
        async masters() {
          const list = (client as { masters?: unknown }).masters;
          if (!Array.isArray(list)) throw new Error('the cluster has no masters list (is it connected?)');
          return Promise.all(
            list.map(async (master: { host?: unknown; port?: unknown }) => {
              const node = (await nodeClient.call(client, master)) as { sendCommand: Fn };
              return { send: (args: string[]) => node.sendCommand(args), name: address(master.host, master.port) };
            }),
          );
        },
        async waitAfter(key, args) {
          const node = (await nodeClient.call(client, slotMaster.call(client, keySlot(key)))) as { sendCommand: Fn };
          return node.sendCommand(args);
        },
      };
    }
    const send = (args: string[]) => sendCommand.call(client, args);
    return { cluster: false, send, masters: async () => [{ send, name: undefined }], waitAfter: (_key, args) => send(args) };
  }
  throw new TypeError(`${expected} an object with neither`);
}

/** The key a node-redis cluster routes a command by. */
function firstKey(args: string[]): string | undefined {
  const command = args[0]?.toUpperCase();
  if (command === 'EVAL' || command === 'EVALSHA') return Number(args[2]) > 0 ? args[3] : undefined;
  if (command === 'PING' || command === 'TIME' || command === 'INFO' || command === 'WAIT') return undefined;
  return args[1];
}

function address(host: unknown, port: unknown): string | undefined {
  return typeof host === 'string' && (typeof port === 'number' || typeof port === 'string') ? `${host}:${port}` : undefined;
}

function waitOption(owner: string, value: unknown): WaitForReplicas | undefined {
  if (value === undefined) return undefined;
  const shape = `${owner}: waitForReplicas must be { replicas: a whole number ≥ 1, timeoutMs: a whole number of milliseconds ≥ 1 }`;
  if (value === null || typeof value !== 'object') throw new TypeError(`${shape}, got ${typeName(value)}`);
  const { replicas, timeoutMs } = value as Partial<Record<'replicas' | 'timeoutMs', unknown>>;
  if (typeof replicas !== 'number' || !Number.isSafeInteger(replicas) || replicas < 1) {
    throw new TypeError(`${shape}, got replicas ${quote(replicas)}`);
  }
  if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) {
    throw new TypeError(`${shape}, got timeoutMs ${quote(timeoutMs)}`);
  }
  return { replicas, timeoutMs };
}

function notAPromise(): TypeError {
  return new TypeError('The Redis client did not return a Promise (a node-redis v4 client in legacyMode? pass client.v4)');
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/** The client's message, short, with URL credentials masked. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const masked = escapeControl(
    message
      .replace(/\/\/[^\s/@]*@/g, '//***@')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  return masked.length > 200 ? `${masked.slice(0, 200)}…` : masked || 'unknown error';
}

function redacted(error: unknown): Error {
  const copy = new Error(reason(error));
  if (error instanceof Error) {
    copy.name = error.name;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') Object.assign(copy, { code });
  }
  return copy;
}

async function sha1Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-1', new TextEncoder().encode(text))));
}
