import { untilAborted } from '../../internal/abort.js';
import { boundedStoreCall, withinLease } from './lease-deadline.js';
import type { CheckedClaim } from '../../stores/claim.js';
import { claimEvent, renewWhileInHand, retryAfterSeconds } from './claims.js';
import type { DeliveryResult } from './delivery-types.js';
import type { WebhookEvent } from '../event.js';
import type { ResolvedOptions } from './resolve-options.js';
import { resolveRecord, type ResolveConfig } from './resolve-record.js';
import type { CallbackHold } from '../../handling.js';

/**
 * Nudges the record `event` is about (the partner's resolver, else the tracker's lookup); `false` when neither
 * finds it. On abort this rejects at once, the nudge going on unheard: a late one only asks for one more read.
 */
export async function nudgeTracker(config: ResolveConfig, event: WebhookEvent, signal: AbortSignal): Promise<boolean> {
  const tracker = config.tracker;
  if (tracker === undefined) return false;
  const target = await resolveRecord(config, event, signal);
  if (target?.externalId === undefined) return false;
  signal.throwIfAborted();
  await untilAborted(tracker.nudge(target.kind, target.externalId, { event }), signal);
  return true;
}

/**
 * With a tracker and no `onEvent`: claim (dedupe), nudge, complete, 200; the reads run in the tracker, outside the
 * provider's time limit. A nudge that fails or outlasts the lease's margin releases the claim (503).
 */
export async function runTrackerDelivery(config: ResolvedOptions, event: WebhookEvent, hold: CallbackHold): Promise<DeliveryResult> {
  const known = { eventId: event.eventId, type: event.type };
  let claim: CheckedClaim;
  const claimedAt = performance.now();
  try {
    claim = await claimEvent(config, event.eventId);
  } catch (error) {
    return { ...known, outcome: 'store-unavailable', error };
  }
  if (claim === 'done') return { ...known, outcome: 'duplicate' };
  if (claim === 'in-flight') return { ...known, outcome: 'in-flight', retryAfterSeconds: await retryAfterSeconds(config, event.eventId) };
  const renewal = renewWhileInHand(config, event.eventId, claim.lease, claimedAt, hold);
  try {
    return await nudgeAndSettle(config, event, known, claim.lease, claimedAt, hold, () => renewal.stop());
  } finally {
    renewal.stop();
    config.claimsInHand.drop(event.eventId);
  }
}

async function nudgeAndSettle(
  config: ResolvedOptions,
  event: WebhookEvent,
  known: { eventId: string; type: string },
  lease: unknown,
  claimedAt: number,
  hold: CallbackHold,
  stopRenewal: () => void,
): Promise<DeliveryResult> {
  let found: boolean;
  try {
    found = await withinLease(
      event.eventId,
      config.leaseMs,
      claimedAt,
      'tracker nudge',
      ({ signal }) => nudgeTracker(config, event, signal),
      hold.signal,
    );
  } catch (error) {
    stopRenewal();
    if (hold.signal.aborted) return { ...known, outcome: 'store-unavailable', error };
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
  stopRenewal();
  try {
    await boundedStoreCall('complete', event.eventId, config.leaseMs, () => config.store.complete(event.eventId, lease));
  } catch (error) {
    // the nudge is stored: a redelivery would only nudge again, which reads once more and calls nothing twice
    return { ...known, outcome: 'handled', nudged: found, error };
  }
  return { ...known, outcome: 'handled', nudged: found };
}
