import type { StatusKind } from 'checkout-partner-sdk/stores';
import type { StatusChange } from 'checkout-partner-sdk/tracker';
import { describe, expectTypeOf, it } from 'vitest';

// The kinds table's promise: code that differs by kind dispatches through a Record<StatusKind, …>,
// so a kind added to the table makes the compiler name every such place.

describe('StatusKind, from the kinds table', () => {
  it('names the kinds of the table, and every change carries one', () => {
    expectTypeOf<StatusKind>().toEqualTypeOf<'order' | 'withdrawal'>();
    expectTypeOf<StatusChange['kind']>().toEqualTypeOf<StatusKind>();
  });

  it('a per-kind table without an entry for every kind does not compile', () => {
    // @ts-expect-error withdrawal is missing: the compiler names the place a kind needs
    const missing: Record<StatusKind, string> = { order: 'settlement.status' };
    const complete: Record<StatusKind, string> = { order: 'settlement.status', withdrawal: 'status' };
    expectTypeOf(missing).toEqualTypeOf(complete);
  });

  it('a kind added to the table is demanded from every per-kind table', () => {
    // what a third kind does to the same table: StatusKind grows, and the old entries no longer do
    type WithRefund = StatusKind | 'refund';
    // @ts-expect-error refund is missing
    const before: Record<WithRefund, string> = { order: 'settlement.status', withdrawal: 'status' };
    expectTypeOf(before).toHaveProperty('refund');
  });
});
