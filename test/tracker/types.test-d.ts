import { CheckoutClient } from 'checkout-partner-sdk';
import { createStatusTracker, type StatusChange, type StatusTracker, type TransactionalStatusStore } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';
import { describe, expectTypeOf, it } from 'vitest';

declare const client: CheckoutClient;

describe('tracker types', () => {
  it('narrows a change on kind: an order has settlement, a withdrawal a status', () => {
    createStatusTracker({
      client,
      onChange: (change) => {
        expectTypeOf(change).toEqualTypeOf<StatusChange>();
        expectTypeOf(change.status).toEqualTypeOf<string | null>();
        expectTypeOf(change.previousStatus).toEqualTypeOf<string | null | undefined>();
        if (change.kind === 'order') expectTypeOf(change.record.settlement).not.toBeAny();
        else expectTypeOf(change.record.status).toBeString();
        // @ts-expect-error no transaction without a transactional store
        void change.transaction;
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

  it('a webhook handler takes a tracker, and then needs no onEvent', () => {
    const tracker: StatusTracker = createStatusTracker({ client, onChange: () => {} });
    createWebhookHandler({ secret: 's', client, tracker });
    expectTypeOf(tracker.nudge).parameter(0).toEqualTypeOf<'order' | 'withdrawal'>();
  });
});
