import { untilAborted } from '../../internal/abort.js';
import { typeName } from '../../internal/type-name.js';
import { boundedStoreCall, withinLease } from './lease-deadline.js';
import { checkClaim, type CheckedClaim } from '../../stores/claim.js';
import type { StatusKind } from '../../tracker/types.js';
import type { DeliveryResult } from './delivery-types.js';
import type { WebhookEvent } from '../event.js';
import type { ExternalIdResolver } from './options.js';
import type { ResolvedOptions } from './resolve-options.js';

/**
 * Asks the tracker to read the record `event` is about now, with the event: `otc.trade.*` and
 * `pix.deposit.*` nudge the order (`resolveOrderExternalId`), `pix.withdrawal.*` the withdrawal
 * (`resolveWithdrawalExternalId`). Other types, or a resolver that finds no id, nudge nothing:
 * the record is still read on its schedule. Resolves once the nudge is stored.
 *
 * The resolver and the nudge are partner code and a store that can hang: when `signal` aborts
 * (the lease deadline) while either still runs, this rejects with its reason (they go on, unheard:
 * a late nudge only asks for one more read).
 */
export async function nudgeTracker(
  config: Pick<ResolvedOptions, 'tracker' | 'resolveOrderExternalId' | 'resolveWithdrawalExternalId'>,
  event: WebhookEvent,
  signal: AbortSignal,
): Promise<boolean> {
  const tracker = config.tracker;
  if (tracker === undefined) return false;
  const { type } = event;
  let kind: StatusKind;
  let resolver: ExternalIdResolver | undefined;
  if (type.startsWith('otc.trade.') || type.startsWith('pix.deposit.')) {
    kind = 'order';
    resolver = config.resolveOrderExternalId;
  } else if (type.startsWith('pix.withdrawal.')) {
    kind = 'withdrawal';
    resolver = config.resolveWithdrawalExternalId;
  } else {
    return false;
  }
  if (resolver === undefined) return false;
  signal.throwIfAborted();
  const externalId: unknown = await untilAborted(Promise.resolve(resolver(event)), signal);
  if (externalId === undefined || externalId === null || externalId === '') return false;
  if (typeof externalId !== 'string')
    throw new TypeError(`the externalId resolver must return a string, null or undefined, got ${typeName(externalId)}`);
  signal.throwIfAborted();
  await untilAborted(tracker.nudge(kind, externalId, { event }), signal);
  return true;
}

/**
 * A delivery to a handler with a `tracker` and no `onEvent`: claim the event (dedupe), nudge the
 * tracker, mark it done, 200. The reads and the partner's effect happen in the tracker, outside
 * the provider's 10 s. A nudge that fails, or that (with its resolver) has not ended shortly
 * before the claim's lease passes (the confirm reads' deadline), releases the claim and answers
 * 503, so the provider redelivers it.
 */
export async function runTrackerDelivery(config: ResolvedOptions, event: WebhookEvent): Promise<DeliveryResult> {
  const known = { eventId: event.eventId, type: event.type };
  let claim: CheckedClaim;
  const claimedAt = performance.now();
  try {
    claim = checkClaim(await config.store.claim(event.eventId, config.leaseMs));
  } catch (error) {
    return { ...known, outcome: 'store-unavailable', error };
  }
  if (claim === 'done') return { ...known, outcome: 'duplicate' };
  if (claim === 'in-flight') return { ...known, outcome: 'in-flight' };
  const { lease } = claim;
  try {
    await withinLease(event.eventId, config.leaseMs, claimedAt, 'tracker nudge', ({ signal }) => nudgeTracker(config, event, signal));
  } catch (error) {
    try {
      await boundedStoreCall('release', event.eventId, config.leaseMs, () => config.store.release(event.eventId, lease));
    } catch (releaseError) {
      return {
        ...known,
        outcome: 'store-unavailable',
        error: new AggregateError([error, releaseError], 'The tracker could not be nudged and the claim could not be released'),
      };
    }
    return { ...known, outcome: 'store-unavailable', error };
  }
  try {
    await boundedStoreCall('complete', event.eventId, config.leaseMs, () => config.store.complete(event.eventId, lease));
  } catch (error) {
    // the nudge is stored: a redelivery would only nudge again, which reads once more and calls nothing twice
    return { ...known, outcome: 'handled', error };
  }
  return { ...known, outcome: 'handled' };
}
