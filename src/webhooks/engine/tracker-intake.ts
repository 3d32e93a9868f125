import { typeName } from '../../internal/type-name.js';
import type { StatusKind, StatusTracker } from '../../tracker/types.js';
import type { DeliveryResult } from './delivery-types.js';
import type { WebhookEvent } from '../event.js';
import type { ExternalIdResolver } from './options.js';
import type { ResolvedOptions } from './resolve-options.js';


/**
 * Asks the tracker to read the record `event` is about now, with the event: `otc.trade.*` and
 * `pix.deposit.*` nudge the order (`resolveOrderExternalId`), `pix.withdrawal.*` the withdrawal
 * (`resolveWithdrawalExternalId`). Other types, or a resolver that finds no id, nudge nothing:
 * the record is still read on its schedule. Resolves once the nudge is stored.
 */
export async function nudgeTracker(config: Pick<ResolvedOptions, 'tracker' | 'resolveOrderExternalId' | 'resolveWithdrawalExternalId'>, event: WebhookEvent): Promise<boolean> {
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
  const externalId: unknown = await resolver(event);
  if (externalId === undefined || externalId === null || externalId === '') return false;
  if (typeof externalId !== 'string') throw new TypeError(`the externalId resolver must return a string, null or undefined, got ${typeName(externalId)}`);
  await tracker.nudge(kind, externalId, { event });
  return true;
}

/**
 * A delivery to a handler with a `tracker` and no `onEvent`: claim the event (dedupe), nudge the
 * tracker, mark it done, 200. The reads and the partner's effect happen in the tracker, outside
 * the provider's 10 s. A nudge that fails releases the claim and answers 503, so the provider
 * redelivers it.
 */
export async function runTrackerDelivery(config: ResolvedOptions, event: WebhookEvent): Promise<DeliveryResult> {
  const known = { eventId: event.eventId, type: event.type };
  let claim: unknown;
  try {
    claim = await config.store.claim(event.eventId, config.leaseMs);
  } catch (error) {
    return { ...known, outcome: 'store-unavailable', error };
  }
  if (claim === 'done') return { ...known, outcome: 'duplicate' };
  if (claim === 'in-flight') return { ...known, outcome: 'in-flight' };
  const lease = claim !== null && typeof claim === 'object' ? (claim as { lease?: unknown }).lease : undefined;
  if (claim !== 'claimed' && lease === undefined) {
    const error = new TypeError(`store.claim must resolve to "claimed", { status: "claimed", lease }, "in-flight" or "done", got ${typeName(claim)}`);
    return { ...known, outcome: 'store-unavailable', error };
  }
  try {
    await nudgeTracker(config, event);
  } catch (error) {
    try {
      await config.store.release(event.eventId, lease);
    } catch (releaseError) {
      return { ...known, outcome: 'store-unavailable', error: new AggregateError([error, releaseError], 'The tracker could not be nudged and the claim could not be released') };
    }
    return { ...known, outcome: 'store-unavailable', error };
  }
  try {
    await config.store.complete(event.eventId, lease);
  } catch (error) {
    // the nudge is stored: a redelivery would only nudge again, which reads once more and calls nothing twice
    return { ...known, outcome: 'handled', error };
  }
  return { ...known, outcome: 'handled' };
}
