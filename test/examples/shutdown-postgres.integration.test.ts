import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { excerpts, ROOT, sigtermWithHungCallback, sigtermWithWorkInHand } from './shutdown-samples.js';

// The shutdown sample on the PostgreSQL stores (examples/shutdown/postgres.ts, its shutdown shown in
// docs/postgres.md) on a real PostgreSQL: SIGTERM with a delivery and a read in hand exits 0 within
// 30 s, and sooner than its pool's idle clients would let it were the pool left open; the restart
// under the same HOSTNAME takes its lease back and pays the order, once in all.

const SAMPLE = 'examples/shutdown/postgres.ts';
let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres?.stop());

describe('the shutdown sample on the PostgreSQL stores', () => {
  it(`docs/postgres.md shows an excerpt of ${SAMPLE}, unchanged`, () => {
    const file = readFileSync(`${ROOT}${SAMPLE}`, 'utf8');
    const shown = excerpts('docs/postgres.md', SAMPLE);
    expect(shown).not.toEqual([]);
    for (const excerpt of shown) expect(file.includes(excerpt), excerpt).toBe(true);
  });

  it('SIGTERM with a delivery and a read in hand exits 0 within 30 s (pool ended); the restart pays once', { timeout: 90_000 }, () =>
    sigtermWithWorkInHand({
      file: SAMPLE,
      order: 'order-42',
      waitsForRead: false,
      env: { DATABASE_URL: postgres.url },
      // a pool left open holds the process until its idle clients time out (pg's idleTimeoutMillis,
      // 10 s by default), or for good with idleTimeoutMillis: 0: the drains here take far less
      exitsWithinMs: 8_000,
    }),
  );

  it(
    'with an onChange that never ends: SIGTERM exits 0 within 30 s (pool ended); the restart takes its lease back',
    { timeout: 90_000 },
    async () => {
      // a database of its own: order-42's change, handled by the test above, is not handled here yet
      const admin = new pg.Client({ connectionString: postgres.url });
      await admin.connect();
      await admin.query('CREATE DATABASE hung_callback');
      await admin.end();
      await sigtermWithHungCallback({
        file: SAMPLE,
        fulfilled: 'paid order-42',
        setup: (fake) => fake.setOrder({ externalId: 'order-42', settlement: { status: 'Settled', tradeId: 't-7' } }),
        event: { eventId: 'evt-hung-pg', type: 'otc.trade.settled', tradeId: 't-7' },
        env: { DATABASE_URL: postgres.url.replace(/\/postgres$/, '/hung_callback') },
      });
    },
  );
});
