import { CheckoutClient, type StatusKind } from 'checkout-partner-sdk';
import { createStatusTracker, MemoryStatusStore, type StatusChange, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';
import type { LastEvent, StatusStore, TransactionalStatusStore } from 'checkout-partner-sdk/stores';
import { describe, expectTypeOf, it } from 'vitest';

declare const client: CheckoutClient;

describe('tracker types', () => {
  it('narrows a change on kind: an order has settlement, a withdrawal a status', () => {
    createStatusTracker({
      client,
      onChange: (change) => {
        expectTypeOf(change).toEqualTypeOf<StatusChange>();
        expectTypeOf(change.status).toEqualTypeOf<string | null>();
        // every change has its identity, whatever its kind
        expectTypeOf(change.id).toEqualTypeOf<string>();
        expectTypeOf(change.previousStatus).toEqualTypeOf<string | null | undefined>();
        if (change.kind === 'order') expectTypeOf(change.record.settlement).not.toBeAny();
        else expectTypeOf(change.record.status).toBeString();
        // no transaction without a transactional store
        expectTypeOf(change).not.toHaveProperty('transaction');
      },
    });
  });

  it('gives onChange the transaction type of a transactional store', () => {
    interface Tx {
      query(sql: string): Promise<unknown>;
    }
    const store = {} as TransactionalStatusStore<Tx>;
    createStatusTracker({
      client,
      store,
      onChange: async (change) => {
        expectTypeOf(change.transaction).toEqualTypeOf<Tx>();
      },
    });
  });

  it('watchOrder and watchWithdrawal take { transaction } only with a transactional store, of its type', async () => {
    interface Tx {
      query(sql: string): Promise<unknown>;
    }
    const tx = {} as Tx;
    const transactional = createStatusTracker({ client, store: {} as TransactionalStatusStore<Tx>, onChange: () => {} });
    expectTypeOf(transactional).toEqualTypeOf<StatusTracker<Tx>>();
    await transactional.watchOrder('o-1', { transaction: tx });
    await transactional.watchWithdrawal('w-1', { transaction: tx });
    await transactional.watchOrder('o-1');
    // @ts-expect-error the transaction must be the store's
    await transactional.watchOrder('o-1', { transaction: 'BEGIN' });

    const plain = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: () => {} });
    expectTypeOf(plain).toEqualTypeOf<StatusTracker>();
    // @ts-expect-error no transaction without a transactional store
    await plain.watchOrder('o-1', { transaction: tx });
    // @ts-expect-error no transaction without a transactional store
    await plain.watchWithdrawal('w-1', { transaction: tx });
    // a transactional tracker still fits where a plain one is expected (the webhook handler's)
    createWebhookHandler({ secret: 's', client, tracker: transactional });
    expectTypeOf(transactional).toExtend<StatusTracker>();
  });

  it('a webhook handler takes a tracker, and then needs no onEvent', () => {
    const tracker: StatusTracker = createStatusTracker({ client, onChange: () => {} });
    createWebhookHandler({ secret: 's', client, tracker });
    expectTypeOf(tracker.nudge).parameter(0).toEqualTypeOf<StatusKind>();
  });

  it('health() tells whether webhooks reach the tracker; a store may say when the last event came', async () => {
    const tracker: StatusTracker = createStatusTracker({
      client,
      onChange: () => {},
      schedule: { safetyIntervalMs: 30_000, webhookSilenceMs: 3_600_000, webhooksFromStart: true },
    });
    const { webhooks } = await tracker.health();
    expectTypeOf(webhooks).toEqualTypeOf<{ lastEventAt: number | undefined; foundFirstByRead: number }>();
    expectTypeOf<StatusStore['lastEvent']>().toEqualTypeOf<(() => Promise<LastEvent | undefined>) | undefined>();
    expectTypeOf(new MemoryStatusStore().lastEvent).returns.resolves.toEqualTypeOf<LastEvent | undefined>();
  });
});
