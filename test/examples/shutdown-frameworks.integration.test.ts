import { createFakeCheckout, deliverEvent, type ProviderEvent } from 'checkout-partner-sdk/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { cleanup, heldService, HOLD_MS, PARTNER, run, SIGNING_SECRET, stopWithin } from './shutdown-samples.js';

// The SIGTERM handlers of the framework examples (examples/webhooks/*.ts, run as scripts): each
// runs as written in a child process, with PostgreSQL where it takes DATABASE_URL; a signed delivery
// arrives and its status read is held in flight; SIGTERM then: the delivery finishes (answered 200,
// its onEvent run), the process exits 0 within 30 s, having closed its server (and pool).

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres?.stop());

interface Example {
  file: string;
  database?: true;
  /** The event, and the status read (path under the partner API) it causes. */
  event: ProviderEvent;
  read: string;
  /** What the example's onEvent prints once the delivery is handled. */
  handled: RegExp;
}

const SETTLED = { eventId: 'evt-sigterm-1', type: 'otc.trade.settled', tradeId: 't-7' };
const ORDER_READ = '/orders/by-external-id/order-of-t-7';
const EXAMPLES: Example[] = [
  {
    file: 'examples/webhooks/node-http.ts',
    event: SETTLED,
    read: ORDER_READ,
    handled: /otc\.trade\.settled evt-sigterm-1 .*confirmed: true/,
  },
  {
    file: 'examples/webhooks/express.ts',
    event: { eventId: 'evt-sigterm-1', type: 'pix.withdrawal.settled', externalId: 'w-7' },
    read: '/withdrawals/by-external-id/w-7',
    handled: /paid out w-7/,
  },
  { file: 'examples/webhooks/koa.ts', event: SETTLED, read: ORDER_READ, handled: /otc\.trade\.settled evt-sigterm-1 .*confirmed: true/ },
  {
    file: 'examples/webhooks/fastify.ts',
    event: SETTLED,
    read: ORDER_READ,
    handled: /otc\.trade\.settled evt-sigterm-1 .*confirmed: true/,
  },
  {
    file: 'examples/webhooks/nestjs.ts',
    database: true,
    event: SETTLED,
    read: ORDER_READ,
    handled: /otc\.trade\.settled evt-sigterm-1 .*confirmed: true/,
  },
  { file: 'examples/webhooks/postgres-exactly-once.ts', database: true, event: SETTLED, read: ORDER_READ, handled: /listening on/ },
];

describe('the SIGTERM handlers of the framework examples', () => {
  for (const example of EXAMPLES) {
    it(`${example.file}: a delivery in hand finishes, then exit 0 within 30 s`, { timeout: 90_000 }, async () => {
      const fake = createFakeCheckout({ partners: [PARTNER] });
      fake.setOrder({ externalId: 'order-of-t-7', settlement: { status: 'Settled', tradeId: 't-7' } });
      fake.setWithdrawal({ externalId: 'w-7', status: 'Completed' });
      const service = await heldService(fake, example.read);
      cleanup.push(() => void service.proxy.close());
      const port = await freePort();
      const database = example.database === true ? `${postgres.url.replace(/\/postgres$/, '')}/app_${port}` : undefined;
      if (database !== undefined) {
        const admin = new pg.Client({ connectionString: postgres.url });
        await admin.connect();
        await admin.query(`CREATE DATABASE app_${port}`);
        await admin.end();
      }
      const child = run(example.file, {
        CHECKOUT_BASE_URL: service.url,
        CHECKOUT_PARTNER_ID: PARTNER.partnerId,
        CHECKOUT_PARTNER_SECRET: PARTNER.partnerSecret,
        WEBHOOK_SIGNING_SECRET: SIGNING_SECRET,
        PORT: String(port),
        ...(database === undefined ? {} : { DATABASE_URL: database }),
      });
      const webhookUrl = `http://127.0.0.1:${port}/webhooks`;
      // up once an unsigned delivery is refused (401): the SIGTERM handler is in place by then
      const up = await eventually(
        () =>
          fetch(webhookUrl, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }).then(
            (answer) => answer.status === 401,
            () => false,
          ),
        30_000,
      );
      expect(up, child.err()).toBe(true);

      service.state.hold = true;
      const delivered = deliverEvent(webhookUrl, example.event, { secret: SIGNING_SECRET, maxAttempts: 1 });
      expect(await eventually(() => service.state.readsArrived > 0, 10_000), child.err()).toBe(true);
      const tookMs = await stopWithin(child);
      expect(tookMs).toBeGreaterThanOrEqual(HOLD_MS - 500); // it waited for the delivery in hand
      const report = await delivered;
      expect(report.deliveries.map((delivery) => delivery.status)).toEqual([200]);
      expect(child.out()).toMatch(example.handled);
      if (database !== undefined && example.file.endsWith('postgres-exactly-once.ts')) {
        const check = new pg.Client({ connectionString: database });
        await check.connect();
        const { rows } = await check.query<{ trade_id: string }>('SELECT trade_id FROM settled_trades');
        await check.end();
        expect(rows).toEqual([{ trade_id: 't-7' }]);
      }
    });
  }
});
