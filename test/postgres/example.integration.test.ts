import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { signPayload } from 'checkout-partner-sdk/webhooks';
import { createServer, migrate } from '../../examples/webhooks/postgres-exactly-once.js';
import { usePostgres } from '../helpers/postgres-pool.js';
import { makeClient, mockCheckout, SECRET } from '../webhooks/helpers.js';

const { state } = mockCheckout({ bypassLoopback: true });

describe('examples/webhooks/postgres-exactly-once.ts', () => {
  const db = usePostgres();

  it('records a confirmed settlement and its outbox email exactly once across concurrent redeliveries', async () => {
    await migrate(db.pool);
    await migrate(db.pool); // safe to run again
    state.orders.set('order-of-t-9', { externalId: 'order-of-t-9', settlement: { status: 'Settled', tradeId: 't-9' } });
    const { server, handler } = createServer({ pool: db.pool, client: makeClient(), secret: SECRET });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
      const body = JSON.stringify({ eventId: 'evt-pg-example', type: 'otc.trade.settled', tradeId: 't-9' });
      const init = {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-provider-signature': await signPayload(body, SECRET) },
        body,
      };
      const statuses = await Promise.all(Array.from({ length: 10 }, async () => (await fetch(url, init)).status));
      expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
      expect((await fetch(url, init)).status).toBe(200);
      const trades = await db.pool.query('SELECT trade_id, event_id, order_id FROM settled_trades');
      expect(trades.rows).toEqual([{ trade_id: 't-9', event_id: 'evt-pg-example', order_id: 'order-of-t-9' }]);
      expect((await db.pool.query('SELECT subject FROM email_outbox')).rows).toEqual([{ subject: 'Order order-of-t-9 is paid' }]);
    } finally {
      await handler.drain();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
