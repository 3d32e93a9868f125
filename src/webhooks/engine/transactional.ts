import { describe } from '../../internal/path.js';
import type { DeliveryResult } from './deliver.js';
import type { ResolvedOptions, TransactionalWebhookContext, WebhookContext } from './options.js';
import type { EventStore } from '../../stores/event-store.js';

/** What {@link TransactionalEventStore.transact} found and did. */
export type TransactResult = 'handled' | 'in-flight' | 'done';

/**
 * An {@link EventStore} that can also run an event's handling inside its own database transaction,
 * so the partner's writes and the "done" mark commit together (exactly-once effects). The webhook
 * handler uses `transact` instead of `claim` / `complete` / `release` when the store has it.
 *
 * Implementation: `PostgresEventStore` from `checkout-partner-sdk/postgres` with `transactional: true`.
 */
export interface TransactionalEventStore<Transaction> extends EventStore {
  /**
   * Opens a transaction and takes `event.eventId` in it without waiting: resolves `"in-flight"`
   * when another transaction (or a live claim) holds it, `"done"` when it was completed (neither
   * calls `work`). Otherwise calls `work(transaction)`; when `work` resolves, marks the event done
   * and commits, then resolves `"handled"`. When `work` rejects, rolls back and rejects with that
   * same error, or with the store's own error when the transaction was lost under it (its session
   * died: answered 503). Any other failure (connecting, locking, committing) rejects with the store's error.
   * A transaction left idle or in a statement for longer than `leaseMs` is ended by the store.
   * When `work` resolved but misused its transaction (ended it, left a statement running), the
   * store rolls back and rejects with an error whose `misuse` is `true`: the delivery fails (500).
   */
  transact(
    event: { eventId: string; type: string },
    leaseMs: number,
    work: (transaction: Transaction) => Promise<void>,
  ): Promise<TransactResult>;
}

/** `store` when it can run a delivery in a transaction (`transact` is a function), else undefined. */
export function transactionalStore(store: EventStore): TransactionalEventStore<unknown> | undefined {
  const candidate = store as Partial<TransactionalEventStore<unknown>>;
  return typeof candidate.transact === 'function' ? (candidate as TransactionalEventStore<unknown>) : undefined;
}

/**
 * The claim-to-done part of a delivery through a transactional store: confirm and `onEvent` run
 * inside the store's transaction. `onEvent` or a confirm read throws → rolled back, 500; the store
 * fails → 503; locked → 409; done → 200. `confirm(claimedAt)` is the delivery's own confirm step.
 */
export async function runTransactional(
  config: ResolvedOptions,
  store: TransactionalEventStore<unknown>,
  known: { eventId: string; type: string },
  confirm: (claimedAt: number) => Promise<WebhookContext>,
): Promise<DeliveryResult> {
  let failure: { error: unknown } | undefined;
  let confirmed = false;
  let result: unknown;
  try {
    result = await store.transact(known, config.leaseMs, async (transaction) => {
      try {
        const context = await confirm(Date.now());
        confirmed = context.confirmed;
        const withTransaction: TransactionalWebhookContext<unknown> = { ...context, transaction };
        await config.onEvent(withTransaction);
      } catch (error) {
        failure = { error };
        throw error;
      }
    });
  } catch (error) {
    // onEvent (or a confirm read) threw: its writes were rolled back, so a redelivery runs it again
    if (failure !== undefined) {
      if (error === failure.error) return { ...known, outcome: 'failed', error };
      // the store failed under it (its session was lost): a store failure, answered 503 like any other
      return { ...known, outcome: 'store-unavailable', error: new AggregateError([failure.error, error], 'The event failed and its transaction was lost (the store failed under it)') };
    }
    // onEvent resolved but misused its transaction (ended it, left work running): its fault, so 500
    if ((error as { misuse?: unknown } | null)?.misuse === true) return { ...known, outcome: 'failed', confirmed, error };
    return { ...known, outcome: 'store-unavailable', error };
  }
  if (result === 'handled') return { ...known, outcome: 'handled', confirmed };
  if (result === 'done') return { ...known, outcome: 'duplicate' };
  if (result === 'in-flight') return { ...known, outcome: 'in-flight' };
  const error = new TypeError(`store.transact must resolve to "handled", "in-flight" or "done", got ${describe(result)}`);
  return { ...known, outcome: 'store-unavailable', error };
}
