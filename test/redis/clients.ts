import { Redis } from 'ioredis';
import { createClient } from 'redis';
import type { RedisClientLike } from 'checkout-partner-sdk/redis';

/** One connection of a Redis client library, as the tests use it. */
export interface Connection {
  /** What the partner passes to the stores. */
  readonly client: RedisClientLike;
  /** Runs a raw command on this connection, to look at or tamper with what the stores wrote. */
  raw(...args: string[]): Promise<unknown>;
  close(): Promise<void>;
}

/** A client library the stores must work with. */
export interface Flavour {
  readonly name: string;
  /**
   * Opens a connection. `failFast` makes commands fail at once while disconnected (ioredis
   * `enableOfflineQueue: false`, node-redis `disableOfflineQueue: true`) instead of queueing.
   * `readyCheck: false` keeps ioredis from sending INFO when it connects (a server without INFO).
   */
  connect(url: string, options?: { failFast?: boolean; readyCheck?: boolean }): Promise<Connection>;
}

const ioredis: Flavour = {
  name: 'ioredis',
  async connect(url, { failFast = false, readyCheck = true } = {}) {
    const client = new Redis(url, {
      lazyConnect: true,
      enableReadyCheck: readyCheck,
      enableOfflineQueue: !failFast,
      maxRetriesPerRequest: failFast ? 0 : 20,
      retryStrategy: (times) => Math.min(times * 50, 500),
    });
    client.on('error', () => undefined); // connection errors while Redis is down are expected
    await client.connect();
    return {
      client,
      raw: (command, ...args) => client.call(command, ...args),
      async close() {
        client.disconnect();
      },
    };
  },
};

const nodeRedis: Flavour = {
  name: 'node-redis',
  async connect(url, { failFast = false } = {}) {
    const client = createClient({
      url,
      disableOfflineQueue: failFast,
      socket: { reconnectStrategy: (retries) => Math.min(retries * 50, 500) },
    });
    client.on('error', () => undefined); // connection errors while Redis is down are expected
    await client.connect();
    return {
      client,
      raw: (...args) => client.sendCommand(args),
      async close() {
        client.destroy();
      },
    };
  },
};

export const flavours: readonly Flavour[] = [ioredis, nodeRedis];
