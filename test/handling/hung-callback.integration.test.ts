import { randomUUID } from 'node:crypto';
import { PostgresEventStore, PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { MemoryEventStore } from 'checkout-partner-sdk/webhooks';
import { describe, it } from 'vitest';
import { usePostgres } from '../helpers/postgres-pool.js';
import { anotherWorkerTakesOver, exitsAfterGivingUp, givenUpPastMaxHandling, type StoreUnderTest } from './hung-callback.js';

// A callback that never ends, on the memory and PostgreSQL stores (plain and transactional): see
// hung-callback.ts. The Redis store: hung-callback-redis.integration.test.ts.

const postgres = usePostgres();

function memory(): StoreUnderTest {
  const events = new MemoryEventStore();
  const records = new MemoryStatusStore();
  return { name: 'memory', env: {}, events: () => events, records: () => records };
}

async function onPostgres(transactional: boolean): Promise<StoreUnderTest> {
  const table = `hung_${randomUUID().replaceAll('-', '')}`;
  const { pool, server } = postgres;
  const events = () => new PostgresEventStore({ pool, table: `${table}_events`, transactional });
  const records = () => new PostgresStatusStore({ pool, table: `${table}_records`, transactional });
  await events().ensureSchema();
  await records().ensureSchema();
  return {
    name: transactional ? 'postgres-tx' : 'postgres',
    env: { DATABASE_URL: server.url, EVENTS_TABLE: `${table}_events`, RECORDS_TABLE: `${table}_records` },
    events,
    records,
  };
}

describe.each(['webhook', 'tracker'] as const)('a hung %s callback', (part) => {
  it('memory store: the process whose drain gave up exits by itself within 5 s of closing', { timeout: 60_000 }, async () => {
    await exitsAfterGivingUp(part, memory());
  });

  it('memory store: past maxHandlingMs (3 s) the signal aborts, and another worker takes over within one lease', { timeout: 60_000 }, () =>
    givenUpPastMaxHandling(part, memory()),
  );

  for (const transactional of [false, true]) {
    const store = transactional ? 'PostgreSQL store, transactional' : 'PostgreSQL store';
    it(
      `${store}: exits within 5 s of closing once its drain gave up; another worker takes over within one lease`,
      { timeout: 60_000 },
      async () => {
        const onStore = await onPostgres(transactional);
        const gaveUpAt = await exitsAfterGivingUp(part, onStore);
        await anotherWorkerTakesOver(part, onStore, gaveUpAt);
      },
    );

    it(
      `${store}: past maxHandlingMs (3 s) the signal aborts, and another worker takes over within one lease`,
      { timeout: 60_000 },
      async () => {
        await givenUpPastMaxHandling(part, await onPostgres(transactional));
      },
    );
  }
});
