import { HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deliverWithTimers, delivery, mockCheckout, setupHandler as setup, until } from '../helpers.js';

const { state } = mockCheckout();

const settled = { eventId: 'evt-1', type: 'otc.trade.settled', tradeId: 't-1', amount: '10.00' };

afterEach(() => {
  vi.useRealTimers();
});

describe('step 3: confirm through the client', () => {
  it('confirms otc.trade.settled when the order is Settled with the event tradeId', async () => {
    const order = { externalId: 'order-for-t-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' }, extra: 1 };
    state.orders.set('order-for-t-1', order);
    const { handler, seen, calls } = setup();
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    expect(seen).toEqual([{ event: settled, order, confirmed: true }]);
    expect(state.reads.get('/api/v1/partner-api/orders/by-external-id/order-for-t-1')).toBe(1);
    expect(calls).toEqual(['claim:evt-1', 'complete:evt-1']);
  });

  it('reads again, delayMs apart, until the order settles', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    state.orders.set('order-for-t-1', (n: number) => ({
      externalId: 'order-for-t-1',
      settlement: { status: n < 3 ? 'Pending' : 'Settled', tradeId: 't-1' },
    }));
    const { handler, seen } = setup();
    const pending = handler.handle(await delivery(settled));
    const reads = () => [...state.reads.values()][0] ?? 0;
    await until(() => reads() === 1);
    await vi.advanceTimersByTimeAsync(499);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => reads() === 2);
    await vi.advanceTimersByTimeAsync(500);
    expect((await pending).status).toBe(200);
    expect([...state.reads.values()]).toEqual([3]);
    expect(seen[0]).toMatchObject({ confirmed: true, order: { settlement: { status: 'Settled' } } });
  });

  it('a wall-clock step between reads neither ends the confirmation nor shortens the lease (monotonic deadlines)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    state.orders.set('order-for-t-1', (n: number) => ({
      externalId: 'order-for-t-1',
      settlement: { status: n < 3 ? 'Pending' : 'Settled', tradeId: 't-1' },
    }));
    const { handler, seen, calls } = setup();
    const pending = handler.handle(await delivery(settled));
    const reads = () => [...state.reads.values()][0] ?? 0;
    await until(() => reads() === 1);
    // an NTP step of an hour forward, then one back: the lease's deadline is a duration from the claim
    vi.setSystemTime(Date.now() + 3_600_000);
    await vi.advanceTimersByTimeAsync(500);
    await until(() => reads() === 2);
    vi.setSystemTime(Date.now() - 7_200_000);
    await vi.advanceTimersByTimeAsync(500);
    expect((await pending).status).toBe(200);
    expect([...state.reads.values()]).toEqual([3]);
    expect(seen[0]).toMatchObject({ confirmed: true, order: { settlement: { status: 'Settled' } } });
    expect(calls).toEqual(['claim:evt-1', 'complete:evt-1']);
  });

  it('gives confirmed: false with the last order after confirm.attempts reads that do not settle', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    state.orders.set('order-for-t-1', { externalId: 'order-for-t-1', settlement: { status: 'Pending', tradeId: 't-1' } });
    const { handler, seen } = setup({ confirm: { attempts: 4, delayMs: 100 } });
    expect((await deliverWithTimers(handler, await delivery(settled))).status).toBe(200);
    expect([...state.reads.values()]).toEqual([4]);
    expect(seen[0]).toMatchObject({ confirmed: false, order: { settlement: { status: 'Pending' } } });
  });

  it('does not confirm otc.trade.settled when the order settled under another tradeId', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    state.orders.set('order-for-t-1', { externalId: 'order-for-t-1', settlement: { status: 'Settled', tradeId: 't-other' } });
    const { handler, seen } = setup();
    await deliverWithTimers(handler, await delivery(settled));
    expect(seen[0]?.confirmed).toBe(false);
    expect([...state.reads.values()]).toEqual([3]);
  });

  it.each([
    ['without tradeId', {}, undefined],
    ['with a null tradeId', { tradeId: null }, null],
  ])(
    'handles otc.trade.settled %s (200, once) but never confirms it, even against an order whose tradeId matches',
    async (_label, extra, orderTradeId) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const settlement = orderTradeId === undefined ? { status: 'Settled' } : { status: 'Settled', tradeId: orderTradeId };
      state.orders.set('o-9', { externalId: 'o-9', settlement });
      const { handler, seen, calls } = setup({ resolveOrderExternalId: () => 'o-9' });
      const event = { eventId: 'evt-no-trade', type: 'otc.trade.settled', ...extra };
      expect((await deliverWithTimers(handler, await delivery(event))).status).toBe(200);
      expect(seen).toEqual([{ event, order: { externalId: 'o-9', settlement }, confirmed: false }]);
      expect(calls).toEqual(['claim:evt-no-trade', 'complete:evt-no-trade']);
      expect((await handler.handle(await delivery(event))).status).toBe(200);
      expect(seen).toHaveLength(1);
    },
  );

  it('confirms otc.trade.cancelled when the order has its tradeId and is Cancelled', async () => {
    state.orders.set('order-for-t-2', { externalId: 'order-for-t-2', settlement: { status: 'Cancelled', tradeId: 't-2' } });
    const { handler, seen } = setup();
    await handler.handle(await delivery({ eventId: 'e-c', type: 'otc.trade.cancelled', tradeId: 't-2' }));
    expect(seen.map((c) => [c.event.type, c.confirmed, c.order?.externalId])).toEqual([['otc.trade.cancelled', true, 'order-for-t-2']]);
    expect([...state.reads.values()]).toEqual([1]);
  });

  it.each([
    ['whose swap is Settled', { status: 'Settled', tradeId: 't-3' }, 't-3'],
    ['of another trade', { status: 'Cancelled', tradeId: 't-other' }, 't-3'],
    ['without a settlement', undefined, 't-3'],
    ['when the event has no tradeId', { status: 'Cancelled', tradeId: 't-3' }, undefined],
  ])('never confirms otc.trade.cancelled for an order %s (read confirm.attempts times)', async (_label, settlement, tradeId) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    state.orders.set('order-for-t-3', { externalId: 'order-for-t-3', ...(settlement ? { settlement } : {}) });
    const { handler, seen } = setup({ resolveOrderExternalId: () => 'order-for-t-3' });
    const event = { eventId: 'e-c3', type: 'otc.trade.cancelled', ...(tradeId ? { tradeId } : {}) };
    expect((await deliverWithTimers(handler, await delivery(event))).status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ confirmed: false, order: { externalId: 'order-for-t-3' } });
    expect([...state.reads.values()]).toEqual([3]);
  });

  it.each([
    ['pix.deposit.confirmed', 'order'],
    ['pix.deposit.received', 'order'],
    ['otc.trade.created', 'order'],
    ['pix.withdrawal.created', 'withdrawal'],
    ['pix.withdrawal.failed', 'withdrawal'],
  ])('hands %s its %s, read once, with confirmed: false (the contract names no target state)', async (type, record) => {
    // an order with nothing paid: a partner writing `if (confirmed) fulfil()` must not ship it
    state.orders.set('order-for-t-7', { externalId: 'order-for-t-7', settlement: { status: 'Pending', tradeId: 't-7' } });
    state.withdrawals.set('w-7', { externalId: 'w-7', status: 'Processing' });
    const { handler, seen } = setup();
    const event = { eventId: `e-${type}`, type, tradeId: 't-7', withdrawalRef: 'w-7' };
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.confirmed).toBe(false);
    expect(seen[0]?.[record as 'order' | 'withdrawal']).toBeDefined();
    expect([...state.reads.values()]).toEqual([1]);
  });

  it('confirms pix.withdrawal.settled once the withdrawal is Completed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    state.withdrawals.set('w-1', (n: number) => ({ externalId: 'w-1', status: n === 1 ? 'Processing' : 'Completed' }));
    const { handler, seen } = setup();
    const event = { eventId: 'e-w', type: 'pix.withdrawal.settled', withdrawalRef: 'w-1' };
    expect((await deliverWithTimers(handler, await delivery(event))).status).toBe(200);
    expect(seen).toEqual([{ event, withdrawal: { externalId: 'w-1', status: 'Completed' }, confirmed: true }]);
    expect([...state.reads.values()]).toEqual([2]);
  });

  it('gives confirmed: false when the withdrawal never completes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    state.withdrawals.set('w-1', { externalId: 'w-1', status: 'Processing' });
    const { handler, seen } = setup();
    await deliverWithTimers(handler, await delivery({ eventId: 'e-w', type: 'pix.withdrawal.settled', withdrawalRef: 'w-1' }));
    expect(seen[0]).toMatchObject({ confirmed: false, withdrawal: { status: 'Processing' } });
    expect([...state.reads.values()]).toEqual([3]);
  });

  it('reads nothing and gives confirmed: false without a resolver', async () => {
    const { handler, seen } = setup({ resolveOrderExternalId: undefined });
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    expect(seen).toEqual([{ event: settled, confirmed: false }]);
    expect(state.reads.size).toBe(0);
  });

  it('reads nothing when the resolver (async) returns nothing', async () => {
    const resolver = vi.fn(async () => undefined);
    const { handler, seen } = setup({ resolveWithdrawalExternalId: resolver });
    await handler.handle(await delivery({ eventId: 'e-w', type: 'pix.withdrawal.settled' }));
    expect(resolver).toHaveBeenCalledOnce();
    expect(seen[0]).toEqual({ event: { eventId: 'e-w', type: 'pix.withdrawal.settled' }, confirmed: false });
    expect(state.reads.size).toBe(0);
  });

  it('uses the id an async resolver returns', async () => {
    state.orders.set('ord-async', { externalId: 'ord-async', settlement: { status: 'Settled', tradeId: 't-1' } });
    const { handler, seen } = setup({ resolveOrderExternalId: async () => 'ord-async' });
    await handler.handle(await delivery(settled));
    expect(seen[0]).toMatchObject({ confirmed: true, order: { externalId: 'ord-async' } });
  });

  it('reads nothing for an unknown type and does not call the resolvers', async () => {
    const order = vi.fn(() => 'x');
    const withdrawal = vi.fn(() => 'y');
    const { handler, seen } = setup({ resolveOrderExternalId: order, resolveWithdrawalExternalId: withdrawal });
    const event = { eventId: 'e-u', event: 'kyc.approved', user: { id: 3 } };
    expect((await handler.handle(await delivery(event))).status).toBe(200);
    expect(seen).toEqual([{ event: { ...event, type: 'kyc.approved' }, confirmed: false }]);
    expect(order).not.toHaveBeenCalled();
    expect(withdrawal).not.toHaveBeenCalled();
    expect(state.reads.size).toBe(0);
  });

  it('gives confirmed: false after one read that answers 404', async () => {
    const { handler, seen } = setup();
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    expect(seen).toEqual([{ event: settled, confirmed: false }]);
    expect([...state.reads.values()]).toEqual([1]);
  });

  it('fails the delivery (500, claim released) when the status read fails, and a redelivery runs it again', async () => {
    state.orders.set('order-for-t-1', (n: number) =>
      n === 1
        ? HttpResponse.json({ message: 'boom' }, { status: 500 })
        : { externalId: 'order-for-t-1', settlement: { status: 'Settled', tradeId: 't-1' } },
    );
    const { handler, seen, calls, entries } = setup();
    expect((await handler.handle(await delivery(settled))).status).toBe(500);
    expect(seen).toEqual([]);
    expect(calls).toEqual(['claim:evt-1', 'release:evt-1']);
    expect(entries[0]).toMatchObject({ outcome: 'failed', status: 500, error: { name: 'ServerError' } });
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    expect(seen).toMatchObject([{ confirmed: true }]);
  });

  it('fails the delivery when a resolver throws or returns a non-string', async () => {
    const { handler, seen } = setup({ resolveOrderExternalId: () => 42 as never });
    expect((await handler.handle(await delivery(settled))).status).toBe(500);
    expect(seen).toEqual([]);
  });
});
