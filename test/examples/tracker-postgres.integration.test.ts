import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { usePostgres } from '../helpers/postgres-pool.js';
import { cleanup, excerpts, PARTNER, run, stopWithin } from './shutdown-samples.js';

// docs/postgres.md's PostgresStatusStore sample (an excerpt of examples/tracker/postgres.ts) runs
// as written against a fresh database: its own table included, one fulfilment row per change.

const SAMPLE = 'examples/tracker/postgres.ts';
const db = usePostgres({ max: 2 });
const fake = createFakeCheckout({ partners: [PARTNER] });

describe('the PostgresStatusStore sample of docs/postgres.md', () => {
  it('is an excerpt of the example', () => {
    expect(excerpts('docs/postgres.md', SAMPLE)).toHaveLength(1);
  });

  it(
    'runs as written: the table made, the settled order fulfilled once, keyed by change.id; SIGTERM exits 0',
    { timeout: 60_000 },
    async () => {
      fake.setOrder({ externalId: 'order-42', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-42' } });
      const server = await fake.listen();
      cleanup.push(() => void server.close());
      const child = run(SAMPLE, {
        DATABASE_URL: db.server.url,
        CHECKOUT_BASE_URL: server.url,
        CHECKOUT_PARTNER_ID: PARTNER.partnerId,
        CHECKOUT_PARTNER_SECRET: PARTNER.partnerSecret,
      });
      const rows = async () => {
        const found = await db.pool
          .query<{ change_id: string; order_id: string; status: string }>('SELECT change_id::text, order_id, status FROM fulfilments')
          .catch(() => ({ rows: [] }));
        return found.rows;
      };
      expect(await eventually(async () => (await rows()).length > 0, 30_000), child.err()).toBe(true);
      await stopWithin(child);
      const [row, ...more] = await rows();
      expect(more).toEqual([]);
      expect(row).toMatchObject({ order_id: 'order-42', status: 'Settled' });
      expect(row!.change_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    },
  );
});
