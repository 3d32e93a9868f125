import { typeName } from '../internal/type-name.js';
import { timerMs } from '../internal/timer-ms.js';
import { toHex } from '../internal/hex.js';
import { escapeControl } from '../internal/quote.js';
import { RedisStoreError, type RedisStoreOperation } from './errors.js';

/**
 * The part of an [ioredis](https://github.com/redis/ioredis) client (v5 or later, `Redis` or
 * `Cluster`) that the Redis stores use: `call` runs a raw command.
 */
export interface IoRedisClientLike {
  /** ioredis' raw command call, e.g. `call('GET', key)`. */
  call(command: string, ...args: string[]): Promise<unknown>;
}

/**
 * The part of a [node-redis](https://github.com/redis/node-redis) client (the `redis` package, v4
 * or later, from `createClient`) that the Redis stores use: `sendCommand` runs a raw command. The
 * client must be connected (`await client.connect()`). A cluster from `createCluster` is not
 * supported.
 */
export interface NodeRedisClientLike {
  /** node-redis' raw command call, e.g. `sendCommand(['GET', key])`. */
  sendCommand(args: string[]): Promise<unknown>;
}

/** An `ioredis` client or a connected node-redis (`redis` package) client. */
export type RedisClientLike = IoRedisClientLike | NodeRedisClientLike;

/** A Lua script, run by its SHA-1 and sent in full only when Redis does not have it cached yet. */
export interface LuaScript {
  readonly source: string;
  /** Lowercase hex SHA-1 of `source`, computed once on first use. */
  sha?: Promise<string>;
}

/** ARGV: the owner's token. Deletes the key only while it still holds that token (a lease, a lock). */
export const DELETE_IF_OWNER: LuaScript = {
  source: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
};

const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

/** The one place that talks to either client: raw commands, scripts, timeouts and error mapping. */
export class RedisConnection {
  readonly #send: (args: string[]) => unknown;
  readonly #timeoutMs: number;
  /** Copy causes without their properties, because an ioredis error holds the command's arguments. */
  readonly #redactCauses: boolean;

  constructor(client: unknown, options: { owner: string; commandTimeoutMs: unknown; redactCauses: boolean }) {
    this.#send = sender(client, options.owner);
    // at most what a timer holds: a longer one fires at once, timing out every command
    this.#timeoutMs = timerMs('commandTimeoutMs', options.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS);
    this.#redactCauses = options.redactCauses;
  }

  /** Runs one raw command, e.g. `['GET', key]`. */
  command(operation: RedisStoreOperation, args: string[]): Promise<unknown> {
    return this.#guard(operation, () => this.#call(args));
  }

  /** Runs `script` with EVALSHA, falling back to EVAL when Redis answers NOSCRIPT. */
  script(operation: RedisStoreOperation, script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    return this.#guard(operation, async () => {
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

  async #call(args: string[]): Promise<unknown> {
    const reply = this.#send(args);
    if (!isThenable(reply)) {
      throw new TypeError('The Redis client did not return a Promise (a node-redis v4 client in legacyMode? pass client.v4)');
    }
    return reply;
  }

  /** `run()`, bounded by the command timeout, with every failure as a {@link RedisStoreError}. */
  async #guard<T>(operation: RedisStoreOperation, run: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new RedisStoreError(`Redis ${operation} timed out after ${this.#timeoutMs} ms`, { operation }));
      }, this.#timeoutMs);
    });
    try {
      return await Promise.race([run(), timeout]);
    } catch (error) {
      if (error instanceof RedisStoreError) throw error;
      const cause = this.#redactCauses ? redacted(error) : error;
      throw new RedisStoreError(`Redis ${operation} failed: ${reason(error)}`, { operation, cause });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A reply as a string: Redis bulk strings arrive as strings, or as bytes from some client settings. */
export function replyString(reply: unknown): string | null | undefined {
  if (reply === null) return null;
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  return undefined;
}

/** Checks a store's `client` option and returns how to send a raw command to it. */
function sender(client: unknown, owner: string): (args: string[]) => unknown {
  const expected =
    `${owner}: client must be an ioredis client (with call()) or a connected node-redis client ` +
    `(with sendCommand(args)), got`;
  if (client === null || typeof client !== 'object') throw new TypeError(`${expected} ${typeName(client)}`);
  const candidate = client as Partial<Record<'call' | 'sendCommand' | 'getSlotMaster', unknown>>;
  if (typeof candidate.call === 'function') {
    const call = candidate.call as (command: string, ...args: string[]) => unknown;
    return ([command, ...args]) => call.call(client, command ?? '', ...args);
  }
  if (typeof candidate.sendCommand === 'function') {
    if (typeof candidate.getSlotMaster === 'function') {
      throw new TypeError(`${owner}: node-redis cluster clients (createCluster) are not supported; pass a client from createClient`);
    }
    const sendCommand = candidate.sendCommand as (args: string[]) => unknown;
    return (args) => sendCommand.call(client, args);
  }
  throw new TypeError(`${expected} an object with neither`);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/** A short reason for the message: the client's message, at most 200 chars, with URL credentials masked. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const masked = escapeControl(message.replace(/\/\/[^\s/@]*@/g, '//***@').replace(/\s+/g, ' ').trim());
  return masked.length > 200 ? `${masked.slice(0, 200)}…` : masked || 'unknown error';
}

/** A copy of a client error with only its name, message and code. */
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
