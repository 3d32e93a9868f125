import { createWebhookHandler, type WebhookContext } from 'checkout-partner-sdk/webhooks';
import { describe, expect, it, vi } from 'vitest';
import { delivery, makeClient, mockCheckout, SECRET, setupHandler } from '../helpers.js';
import { capitalized, KINDS } from '../../helpers/kinds.js';

// Issue 40: the handler's resolvers and the record it hands onEvent are keyed by kind
// (resolveExternalId, context.record), the per-kind options still work, and its option list is the
// kinds table's: an unknown option is refused, each kind's resolver option is known.

const { state } = mockCheckout();

const settled = { eventId: 'evt-1', type: 'otc.trade.settled', tradeId: 't-1' };
const paid = { eventId: 'evt-2', type: 'pix.withdrawal.settled', withdrawalRef: 'w-1' };

describe('resolveExternalId: the resolvers by kind', () => {
  it('reads each kind through its entry, and hands the record over by kind and in record', async () => {
    const order = { externalId: 'o-1', settlement: { status: 'Settled', tradeId: 't-1' } };
    state.orders.set('o-1', order);
    state.withdrawals.set('w-1', { externalId: 'w-1', status: 'Completed' });
    const { handler, seen } = setupHandler({
      resolveOrderExternalId: undefined,
      resolveWithdrawalExternalId: undefined,
      resolveExternalId: { order: () => 'o-1', withdrawal: async (event) => String(event['withdrawalRef']) },
    });
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    expect((await handler.handle(await delivery(paid))).status).toBe(200);
    expect(seen).toEqual([
      { event: settled, order, confirmed: true },
      { event: paid, withdrawal: { externalId: 'w-1', status: 'Completed' }, confirmed: true },
    ]);
    expect(seen.map((context) => context.record)).toEqual([
      { kind: 'order', externalId: 'o-1', data: order },
      { kind: 'withdrawal', externalId: 'w-1', data: { externalId: 'w-1', status: 'Completed' } },
    ]);
    // record is not enumerable: a spread, a log line or a 1.1 test's deep equality leaves it out
    expect(Object.keys(seen[0] as WebhookContext)).toEqual(['event', 'order', 'confirmed']);
  });

  it('has no record when nothing was read', async () => {
    const { handler, seen } = setupHandler({ resolveOrderExternalId: () => undefined });
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    expect(seen).toEqual([{ event: settled, confirmed: false }]);
    expect(seen[0]?.record).toBeUndefined();
  });

  it('refuses a kind given both ways, an unknown kind, and a resolver that is no function', () => {
    const base = { secret: SECRET, client: makeClient(), onEvent: () => {}, logger: false as const };
    expect(() => createWebhookHandler({ ...base, resolveOrderExternalId: () => 'a', resolveExternalId: { order: () => 'b' } })).toThrow(
      /give the order resolver once: resolveExternalId.order or resolveOrderExternalId, not both/,
    );
    expect(() => createWebhookHandler({ ...base, resolveExternalId: { 'no-such-kind': () => 'x' } as never })).toThrow(
      /resolveExternalId: unknown option "no-such-kind"/,
    );
    expect(() => createWebhookHandler({ ...base, resolveExternalId: { withdrawal: 'w-1' } as never })).toThrow(
      /resolveExternalId.withdrawal must be a function/,
    );
    expect(() => createWebhookHandler({ ...base, resolveExternalId: null as never })).toThrow(TypeError);
    // one kind each way is fine
    expect(() =>
      createWebhookHandler({ ...base, resolveOrderExternalId: () => 'a', resolveExternalId: { withdrawal: () => 'w' } }),
    ).not.toThrow();
  });

  it('knows every kind resolver option and nothing else', () => {
    const base = { secret: SECRET, client: makeClient(), onEvent: () => {}, logger: false as const };
    expect(() => createWebhookHandler({ ...base, resolveNoSuchKindExternalId: () => 'r' } as never)).toThrow(
      /unknown option "resolveNoSuchKindExternalId"/,
    );
    expect(() => createWebhookHandler({ ...base, resolveOrderExternalID: () => 'r' } as never)).toThrow(
      /did you mean "resolveOrderExternalId"/,
    );
  });

  it('the never-confirms warning names every kind with the events it serves', () => {
    const logger = vi.fn();
    createWebhookHandler({ secret: SECRET, client: makeClient(), onEvent: () => {}, logger });
    const { message } = logger.mock.calls[0]?.[0] as { message: string };
    expect(message).toContain('order (otc.trade.*, pix.deposit.*)');
    expect(message).toContain('withdrawal (pix.withdrawal.*)');
    logger.mockClear();
    createWebhookHandler({ secret: SECRET, client: makeClient(), onEvent: () => {}, logger, resolveExternalId: { withdrawal: () => 'w' } });
    expect(logger).not.toHaveBeenCalled();
  });
});

describe('a status reader needs only the reads of the kinds it is used for', () => {
  it('a double with only the order read confirms order events, and fails a withdrawal event naming what it lacks', async () => {
    const order = { externalId: 'o-1', settlement: { status: 'Settled', tradeId: 't-1' } };
    const logger = vi.fn();
    const { handler, seen } = setupHandler({ client: { getOrderByExternalId: async () => order }, logger });
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    expect(seen).toEqual([{ event: settled, order, confirmed: true }]);
    expect((await handler.handle(await delivery(paid))).status).toBe(500);
    const failed = logger.mock.calls.map((call) => call[0] as { outcome?: string; error?: { message?: string } }).at(-1);
    expect(failed?.error?.message).toMatch(/client has neither getWithdrawalByExternalId nor getRecord/);
  });

  it('a double with only getRecord reads every kind through it', async () => {
    const getRecord = vi.fn(async (kind: string, externalId: string) =>
      kind === 'order' ? { externalId, settlement: { status: 'Settled', tradeId: 't-1' } } : { externalId, status: 'Completed' },
    );
    const { handler, seen } = setupHandler({ client: { getRecord } });
    await handler.handle(await delivery(settled));
    await handler.handle(await delivery(paid));
    expect(getRecord.mock.calls.map(([kind, id]) => [kind, id])).toEqual([
      ['order', 'order-for-t-1'],
      ['withdrawal', 'w-1'],
    ]);
    expect(seen.map((context) => context.confirmed)).toEqual([true, true]);
  });

  it('a client with no read at all is refused at construction', () => {
    const reads = ['getRecord', ...KINDS.map((kind) => `get${capitalized(kind)}ByExternalId`)];
    expect(() => createWebhookHandler({ secret: SECRET, client: { getRecords: () => 1 } as never, onEvent: () => {} })).toThrow(
      `client must be a CheckoutClient (an object with ${reads.join(' or ')})`,
    );
  });
});
