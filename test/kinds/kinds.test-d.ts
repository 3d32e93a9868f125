import {
  CheckoutClient,
  type Currency,
  type KindReads,
  type KindRecord,
  type KindRecords,
  type KindResponseReads,
  type KindWaits,
  type Order,
  type ReadName,
  type RecordOf,
  type RecordReader,
  type Settlement,
  type SettlementStatus,
  type StatusReader,
  type Withdrawal,
  type WithdrawalStatus,
  type RequestOptions,
  type ResolverName,
  type WaitOptions,
  type WithResponse,
} from 'checkout-partner-sdk';
import type { StatusKind } from 'checkout-partner-sdk/stores';
import { isFinalStatus, isSuccessStatus } from 'checkout-partner-sdk/tracker';
import type { FakeCheckout, FakeKindRecords } from 'checkout-partner-sdk/testing';
import type {
  KindStatusChange,
  KindWatches,
  StatusTracker,
  OrderStatusChange,
  StatusChange,
  StatusChangesByKind,
  WithdrawalStatusChange,
} from 'checkout-partner-sdk/tracker';
import type {
  ExternalIdResolver,
  ExternalIdResolvers,
  KindResolverOptions,
  WebhookContext,
  WebhookContextRecords,
  WebhookHandlerOptions,
} from 'checkout-partner-sdk/webhooks';
import { describe, expectTypeOf, it } from 'vitest';

// The kinds table's promise: code that differs by kind dispatches through a Record<StatusKind, …>,
// so a kind added to the table makes the compiler name every such place.

describe('StatusKind, from the kinds table', () => {
  it('names the kinds of the table, the 1.1 ones among them, and every change carries one', () => {
    expectTypeOf<StatusKind>().toEqualTypeOf<keyof KindRecords>();
    expectTypeOf<'order' | 'withdrawal'>().toExtend<StatusKind>();
    expectTypeOf<StatusChange['kind']>().toEqualTypeOf<StatusKind>();
  });

  it('a per-kind table without an entry for every kind does not compile', () => {
    // @ts-expect-error only one kind given: the compiler names the place every other kind needs
    const missing: Record<StatusKind, string> = { order: 'settlement.status' };
    expectTypeOf(missing).toEqualTypeOf<Record<StatusKind, string>>();
  });

  it('a kind added to the table is demanded from every per-kind table', () => {
    // what a third kind does to the same table: StatusKind grows, and the old entries no longer do
    type WithRefund = StatusKind | 'refund';
    // @ts-expect-error refund is missing
    const before: Record<WithRefund, string> = { order: 'settlement.status', withdrawal: 'status' };
    expectTypeOf(before).toHaveProperty('refund');
  });
});

describe('generic by kind, typed from the table (issue 40)', () => {
  it('getRecord and waitFor give the record of the kind asked for', () => {
    const client = new CheckoutClient({});
    expectTypeOf(client.getRecord('order', 'o-1')).resolves.toEqualTypeOf<Order>();
    expectTypeOf(client.getRecord('withdrawal', 'w-1')).resolves.toEqualTypeOf<Withdrawal>();
    expectTypeOf(client.withResponse().getRecord('withdrawal', 'w-1')).resolves.toEqualTypeOf<WithResponse<Withdrawal>>();
    expectTypeOf(client.waitFor('withdrawal', 'w-1', (w) => w.status === 'Completed')).resolves.toEqualTypeOf<Withdrawal>();
    expectTypeOf<RecordOf<'order'>>().toEqualTypeOf<Order>();
    // @ts-expect-error a kind the table does not have
    void client.getRecord('no-such-kind', 'x-1');
  });

  it("each kind's status change is derived from the table", () => {
    expectTypeOf<StatusChangesByKind[StatusKind]['record']>().toEqualTypeOf<KindRecords[StatusKind]>();
    expectTypeOf<Order | Withdrawal>().toExtend<StatusChangesByKind[StatusKind]['record']>();
    expectTypeOf<OrderStatusChange>().toEqualTypeOf<KindStatusChange<'order'>>();
    expectTypeOf<WithdrawalStatusChange['record']>().toEqualTypeOf<Withdrawal>();
    expectTypeOf<keyof StatusChangesByKind>().toEqualTypeOf<StatusKind>();
  });

  it("the webhook context's record narrows on its kind; the resolvers are keyed by kind", () => {
    expectTypeOf<NonNullable<WebhookContext['record']>['kind']>().toEqualTypeOf<StatusKind>();
    expectTypeOf<Extract<KindRecord, { kind: 'withdrawal' }>['data']>().toEqualTypeOf<Withdrawal>();
    expectTypeOf<keyof ExternalIdResolvers>().toEqualTypeOf<StatusKind>();
    expectTypeOf<WebhookHandlerOptions['resolveExternalId']>().toEqualTypeOf<ExternalIdResolvers | undefined>();
    expectTypeOf<keyof KindResolverOptions>().toEqualTypeOf<ResolverName<StatusKind>>();
    expectTypeOf<'resolveOrderExternalId' | 'resolveWithdrawalExternalId'>().toExtend<keyof WebhookHandlerOptions>();
    expectTypeOf<WebhookHandlerOptions['resolveOrderExternalId']>().toEqualTypeOf<ExternalIdResolver | undefined>();
    expectTypeOf<keyof WebhookContextRecords>().toEqualTypeOf<StatusKind>();
    expectTypeOf<WebhookContext['withdrawal']>().toEqualTypeOf<Withdrawal | undefined>();
  });

  it("each kind's own members are made from the table, typed by its kind (issue 45)", () => {
    expectTypeOf<keyof KindReads>().toEqualTypeOf<ReadName<StatusKind>>();
    expectTypeOf<keyof KindResponseReads>().toEqualTypeOf<ReadName<StatusKind>>();
    expectTypeOf<keyof KindWaits>().toEqualTypeOf<`waitFor${Capitalize<StatusKind>}`>();
    expectTypeOf<keyof KindWatches>().toEqualTypeOf<`watch${Capitalize<StatusKind>}`>();
    expectTypeOf<CheckoutClient['getOrderByExternalId']>().toEqualTypeOf<
      (externalId: string, options?: RequestOptions) => Promise<Order>
    >();
    expectTypeOf<CheckoutClient['waitForWithdrawal']>().toEqualTypeOf<
      (externalId: string, until: (record: Withdrawal) => boolean, options?: WaitOptions) => Promise<Withdrawal>
    >();
    expectTypeOf<StatusTracker['watchOrder']>().toEqualTypeOf<(externalId: string) => Promise<void>>();
    expectTypeOf<StatusTracker<{ query(): void }>['watchOrder']>().parameters.toEqualTypeOf<
      [externalId: string, options?: { transaction?: { query(): void } | undefined }]
    >();
    expectTypeOf<FakeCheckout>().toExtend<FakeKindRecords>();
    expectTypeOf<FakeCheckout['setWithdrawal']>().toEqualTypeOf<(record: Withdrawal) => Withdrawal>();
    expectTypeOf<FakeCheckout['getOrder']>().toEqualTypeOf<(externalId: string) => Order | undefined>();
    // @ts-expect-error a per-kind member of a kind the table does not have
    expectTypeOf<CheckoutClient['getNoSuchKindByExternalId']>().toBeFunction();
  });

  it('a client double needs only the reads of the kinds it is used for', () => {
    const orderOnly: RecordReader = { getOrderByExternalId: async (externalId) => ({ externalId }) };
    const generic: RecordReader = { getRecord: async (_kind, externalId) => ({ externalId, status: 'Completed' }) };
    // a 1.1 double of both reads, with narrower options, still fits
    const both: RecordReader = {
      getOrderByExternalId: async (externalId: string, options?: { signal?: AbortSignal }) => {
        options?.signal?.throwIfAborted();
        return { externalId };
      },
      getWithdrawalByExternalId: async (externalId: string) => ({ externalId, status: 'Pending' }),
    };
    // @ts-expect-error a read that returns the wrong kind of record
    const wrong: RecordReader = { getWithdrawalByExternalId: async () => 42 };
    // @ts-expect-error nothing a reader has
    const none: RecordReader = { getRecords: async () => ({}) };
    expectTypeOf([orderOnly, generic, both, wrong, none]).items.toExtend<RecordReader>();
    expectTypeOf<StatusReader>().toExtend<RecordReader>();
  });

  it('every type inside an exported record can be named', () => {
    expectTypeOf<Order['settlement']>().toEqualTypeOf<Settlement | null | undefined>();
    expectTypeOf<Exclude<Settlement['status'], undefined>>().toEqualTypeOf<SettlementStatus>();
    expectTypeOf<Withdrawal['status']>().toEqualTypeOf<WithdrawalStatus>();
    expectTypeOf<Exclude<Order['currency'], undefined>>().toEqualTypeOf<Currency>();
    expectTypeOf(isFinalStatus).parameters.toEqualTypeOf<[StatusKind, string | null]>();
    expectTypeOf(isSuccessStatus).returns.toEqualTypeOf<boolean>();
  });
});
