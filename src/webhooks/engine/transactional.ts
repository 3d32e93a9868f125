import { typeName } from '../../internal/type-name.js';
import type { EventStore, TransactionalEventStore } from '../../stores/event-store.js';
import type { DeliveryResult } from './delivery-types.js';
import type { TransactionalWebhookContext } from './options.js';
import type { ConfirmedContext } from './confirm.js';
import type { ResolvedOptions } from './resolve-options.js';
import { wholeLeaseSeconds } from './claims.js';
import { withSignal, type CallbackHold } from '../../handling.js';

/** `store` when it can run a delivery in a transaction (`transact` is a function), else undefined. */
export function transactionalStore(store: EventStore): TransactionalEventStore<unknown> | undefined {
  const candidate = store as Partial<TransactionalEventStore<unknown>>;
  return typeof candidate.transact === 'function' ? (candidate as TransactionalEventStore<unknown>) : undefined;
}

/**
 * The claim-to-done part of a delivery through a transactional store: confirm and `onEvent` run
 * inside the store's transaction. `onEvent` or a confirm read throws → rolled back, 500; the store
 * fails → 503; locked → 409; done → 200. `confirm(claimedAt)` is the delivery's own confirm step.
 * Work given up (`hold`) fails at once: the store ends its transaction (rolled back).
 */
export async function runTransactional(
  config: ResolvedOptions,
  store: TransactionalEventStore<unknown>,
  known: { eventId: string; type: string },
  hold: CallbackHold,
  confirm: (claimedAt: number) => Promise<ConfirmedContext>,
): Promise<DeliveryResult> {
  let failure: { error: unknown } | undefined;
  let confirmed = false;
  let result: unknown;
  try {
    result = await store.transact(
      known,
      config.leaseMs,
      async (transaction) => {
        try {
          const context = await confirm(performance.now());
          confirmed = context.confirmed;
          const withTransaction: TransactionalWebhookContext<unknown> = Object.assign(withSignal(context, hold.signal), { transaction });
          await hold.run(() => config.onEvent(withTransaction), config.maxHandlingMs);
        } catch (error) {
          failure = { error };
          throw error;
        }
      },
      { signal: hold.signal },
    );
  } catch (error) {
    if (hold.signal.aborted) return { ...known, outcome: 'failed', error: hold.signal.reason };
    // the transaction (the claim) ended under a running onEvent: it is let go too
    if (hold.callbackRunning) hold.giveUp('lease-lost');
    // onEvent (or a confirm read) threw: its writes were rolled back, so a redelivery runs it again
    if (failure !== undefined) {
      if (error === failure.error) return { ...known, outcome: 'failed', error };
      // the store failed under it (its session was lost): a store failure, answered 503 like any other
      return {
        ...known,
        outcome: 'store-unavailable',
        error: new AggregateError([failure.error, error], 'The event failed and its transaction was lost (the store failed under it)'),
      };
    }
    // onEvent resolved but misused its transaction (ended it, left work running): its fault, so 500
    if ((error as { misuse?: unknown } | null)?.misuse === true) return { ...known, outcome: 'failed', confirmed, error };
    return { ...known, outcome: 'store-unavailable', error };
  }
  if (result === 'handled') return { ...known, outcome: 'handled', confirmed };
  if (result === 'done') return { ...known, outcome: 'duplicate' };
  // a live transaction holds it (a killed worker's ends with its connection), bounded by leaseMs: no
  // lease end is recorded, and asking would cost the 409 another checkout
  if (result === 'in-flight') return { ...known, outcome: 'in-flight', retryAfterSeconds: wholeLeaseSeconds(config) };
  const error = new TypeError(`store.transact must resolve to "handled", "in-flight" or "done", got ${typeName(result)}`);
  return { ...known, outcome: 'store-unavailable', error };
}
