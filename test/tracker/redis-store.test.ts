import { RedisStatusStore } from 'checkout-partner-sdk/redis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { flavours, type Connection } from '../redis/clients.js';
import { statusStoreContract, statusStoreMetricsContract, type StoreUnderTest } from './store-contract.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(() => server?.stop());

let prefixes = 0;

describe.each(flavours)('RedisStatusStore with $name: the StatusStore contract', (flavour) => {
  let connection: Connection;
  beforeAll(async () => {
    connection = await flavour.connect(server.url);
  });
  afterAll(() => connection?.close());
  // the store's clock is the server's: time passes for real
  const fresh = (shards?: number): StoreUnderTest => ({
    store: new RedisStatusStore({ client: connection.client, prefix: `status-test-${flavour.name}-${++prefixes}:`, shards }),
    advance: (ms) => sleep(ms),
  });
  describe('one due index', () => {
    statusStoreContract(() => fresh());
    statusStoreMetricsContract(() => fresh());
  });
  // the layout a Cluster gets, on one server: every part read and merged earliest first
  describe('the due index in 4 parts', () => {
    statusStoreContract(() => fresh(4));
    statusStoreMetricsContract(() => fresh(4));
  });
});
