import { afterEach, describe, expect, it, vi } from 'vitest';
import { deliverWithTimers, delivery, mockCheckout, setupHandler } from '../helpers.js';

// API.md: otc.trade.cancelled is confirmed only when the order's settlement has the event's
// tradeId and its status names a cancellation (by default, begins with "cancel", any case).
const { state } = mockCheckout();
const cancelled = { eventId: 'evt-cancel', type: 'otc.trade.cancelled', tradeId: 't-c' };
const ORDER_PATH = '/api/v1/partner-api/orders/by-external-id/order-for-t-c';

afterEach(() => {
  vi.useRealTimers();
});

describe('otc.trade.cancelled confirms a cancellation only', () => {
  it('is not confirmed while the order is still Pending: read confirm.attempts times, then confirmed: false', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    state.orders.set('order-for-t-c', { externalId: 'order-for-t-c', settlement: { status: 'Pending', tradeId: 't-c' } });
    const { handler, seen } = setupHandler();
    expect((await deliverWithTimers(handler, await delivery(cancelled))).status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ confirmed: false, order: { settlement: { status: 'Pending' } } });
    expect(state.reads.get(ORDER_PATH)).toBe(3);
  });

  it('re-reads a Pending order until it shows the cancellation, then confirms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    state.orders.set('order-for-t-c', (n: number) => ({
      externalId: 'order-for-t-c',
      settlement: { status: n < 2 ? 'Pending' : 'Cancelled', tradeId: 't-c' },
    }));
    const { handler, seen } = setupHandler();
    expect((await deliverWithTimers(handler, await delivery(cancelled))).status).toBe(200);
    expect(seen[0]).toMatchObject({ confirmed: true, order: { settlement: { status: 'Cancelled' } } });
    expect(state.reads.get(ORDER_PATH)).toBe(2);
  });

  it.each(['Cancelled', 'Canceled', 'CANCELLED', 'cancelled', 'CancellationDone'])(
    'confirms a status that names a cancellation: %s',
    async (status) => {
      state.orders.set('order-for-t-c', { externalId: 'order-for-t-c', settlement: { status, tradeId: 't-c' } });
      const { handler, seen } = setupHandler();
      expect((await handler.handle(await delivery(cancelled))).status).toBe(200);
      expect(seen[0]?.confirmed).toBe(true);
      expect(state.reads.get(ORDER_PATH)).toBe(1);
    },
  );

  it.each(['Pending', 'Processing', 'Failed', 'Expired', 'NotCancelled', ''])(
    'does not confirm a status that does not: %j',
    async (status) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      state.orders.set('order-for-t-c', { externalId: 'order-for-t-c', settlement: { status, tradeId: 't-c' } });
      const { handler, seen } = setupHandler();
      expect((await deliverWithTimers(handler, await delivery(cancelled))).status).toBe(200);
      expect(seen[0]?.confirmed).toBe(false);
      expect(state.reads.get(ORDER_PATH)).toBe(3);
    },
  );
});
