import { afterEach, describe, expect, it, vi } from 'vitest';
import { deliverWithTimers, delivery, mockCheckout, setupHandler as setup } from '../helpers.js';

// The confirmation reads through the client, which refuses a record that is not the one asked for:
// w-B's Completed record never confirms w-A's settlement.
const { state } = mockCheckout();

afterEach(() => {
  vi.useRealTimers();
});

describe('confirmation of the record asked for', () => {
  it("never gives confirmed: true for w-A on w-B's Completed record: the delivery fails and the claim is released", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    state.withdrawals.set('w-A', { externalId: 'w-B', status: 'Completed' });
    const { handler, seen, calls, entries } = setup();
    const response = await deliverWithTimers(
      handler,
      await delivery({ eventId: 'e-wa', type: 'pix.withdrawal.settled', withdrawalRef: 'w-A' }),
    );
    expect(response.status).toBe(500);
    expect(seen).toEqual([]);
    expect(calls).toEqual(['claim:e-wa', 'release:e-wa']);
    expect(JSON.stringify(entries)).toContain('ResponseValidationError');
  });

  it("never confirms otc.trade.settled for order A on order B's Settled record", async () => {
    state.orders.set('order-for-t-1', { externalId: 'order-B', settlement: { status: 'Settled', tradeId: 't-1' } });
    const { handler, seen } = setup();
    const response = await handler.handle(await delivery({ eventId: 'e-oa', type: 'otc.trade.settled', tradeId: 't-1' }));
    expect(response.status).toBe(500);
    expect(seen).toEqual([]);
  });
});
