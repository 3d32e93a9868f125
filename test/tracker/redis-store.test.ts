import { RedisStatusStore } from 'checkout-partner-sdk/redis';
import { afterAll, beforeAll, describe } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { flavours, type Connection } from '../redis/clients.js';
import { statusStoreContract, statusStoreMetricsContract } from './store-contract.js';

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
  statusStoreContract(() => new RedisStatusStore({ client: connection.client, prefix: `status-test-${flavour.name}-${++prefixes}:` }));
  statusStoreMetricsContract(() => new RedisStatusStore({ client: connection.client, prefix: `status-test-${flavour.name}-${++prefixes}:` }));
});
