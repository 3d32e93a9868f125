import { typeName } from '../../internal/type-name.js';
import type { EventStore, TransactionalEventStore } from '../../stores/event-store.js';
import type { DeliveryResult } from './delivery-types.js';
import type { TransactionalWebhookContext } from './options.js';
import type { ConfirmedContext } from './confirm.js';
import type { ResolvedOptions } from './resolve-options.js';
import { wholeLeaseSeconds } from './claims.js';
import { withSignal, type CallbackHold } from '../../handling.js';

export function transactionalStore(store: EventStore): TransactionalEventStore<unknown> | undefined {
  const candidate = store as Partial<TransactionalEventStore<unknown>>;
  return typeof candidate.transact === 'function' ? (candidate as TransactionalEventStore<unknown>) : undefined;
}

/** Confirm and `onEvent` inside the store's transaction; work given up fails at once, its transaction rolled back. */
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
    // the transaction (the claim) ended under a running onEvent: let it go too
    if (hold.callbackRunning) hold.giveUp('lease-lost');
    if (failure !== undefined) {
      if (error === failure.error) return { ...known, outcome: 'failed', error };
      // the store failed under it (its session lost): a store failure
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
  // a live transaction holds it, bounded by leaseMs: no lease end is recorded, and asking would cost another checkout
  if (result === 'in-flight') return { ...known, outcome: 'in-flight', retryAfterSeconds: wholeLeaseSeconds(config) };
  const error = new TypeError(`store.transact must resolve to "handled", "in-flight" or "done", got ${typeName(result)}`);
  return { ...known, outcome: 'store-unavailable', error };
}
