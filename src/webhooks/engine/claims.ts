import { checkClaim, type CheckedClaim } from '../../stores/claim.js';
import { boundedStoreCall } from './lease-deadline.js';
import type { ResolvedOptions } from './resolve-options.js';
import type { CallbackHold } from '../../handling.js';

// A delivery's claim on its event: taken (with the handler's owner), renewed while in hand, and
// the Retry-After of a 409 when another claim holds it.

/**
 * Claims `eventId` in the store, under the handler's `owner` when it has one (a live claim of that
 * owner, made before a restart, is taken back): then `"in-flight"` without asking the store when
 * this handler already holds it, and a claimed event stays in hand until `ClaimsInHand.drop`.
 * Rejects as the store does, or with a `TypeError` for a claim that breaks the contract.
 */
export async function claimEvent(config: ResolvedOptions, eventId: string): Promise<CheckedClaim> {
  const { owner, claimsInHand } = config;
  if (owner === undefined) return checkClaim(await config.store.claim(eventId, config.leaseMs));
  if (!claimsInHand.take(eventId)) return 'in-flight';
  try {
    const claim = checkClaim(await config.store.claim(eventId, config.leaseMs, { owner }));
    if (typeof claim === 'string') claimsInHand.drop(eventId);
    return claim;
  } catch (error) {
    claimsInHand.drop(eventId);
    throw error;
  }
}

/**
 * The `Retry-After` of a 409, in whole seconds (at least 1): the time left on the claim that holds
 * `eventId`, as the store tells it (`leaseLeftMs`), else the whole `leaseMs`.
 */
export async function retryAfterSeconds(config: ResolvedOptions, eventId: string): Promise<number> {
  const { store } = config;
  let leftMs: unknown;
  if (typeof store.leaseLeftMs === 'function') {
    try {
      leftMs = await boundedStoreCall('leaseLeftMs', eventId, config.leaseMs, () => store.leaseLeftMs?.(eventId));
    } catch {
      // a 409 is answered all the same, with the longest wait the lease can take
    }
  }
  if (typeof leftMs !== 'number' || !Number.isFinite(leftMs) || leftMs < 0) return wholeLeaseSeconds(config);
  return Math.max(1, Math.ceil(leftMs / 1_000));
}

/** The `Retry-After` of a 409 when the time left is not known: the whole `leaseMs`, in whole seconds. */
export function wholeLeaseSeconds(config: Pick<ResolvedOptions, 'leaseMs'>): number {
  return Math.max(1, Math.ceil(config.leaseMs / 1_000));
}

/** A claim being renewed while its delivery is in hand (see {@link renewWhileInHand}). */
export interface ClaimRenewal {
  /** Stops renewing: the work under the claim has ended. */
  stop(): void;
  /** Until when (this process's monotonic clock) the claim holds as last renewed: the last renewal sent plus `leaseMs`. */
  readonly heldUntil: number;
}

/**
 * Renews the claim every third of `leaseMs` (as the tracker renews its leases) while the delivery
 * is in hand, so a long `onEvent` keeps it and a short lease still frees a killed worker's claim
 * soon. One renewal at a time, each bounded; one that fails is tried again at the next tick. It
 * stops once `hold` is given up, and gives it up (`lease-lost`) when the store says the claim is
 * lost. A store without `renew` is not renewed: its claim holds for `leaseMs` (the longer default).
 */
export function renewWhileInHand(
  config: ResolvedOptions,
  eventId: string,
  lease: unknown,
  claimedAt: number,
  hold: CallbackHold,
): ClaimRenewal {
  const { store, leaseMs } = config;
  let heldUntil = claimedAt + leaseMs;
  if (typeof store.renew !== 'function') return { stop: () => undefined, heldUntil };
  let pending = false;
  const timer = setInterval(() => {
    if (pending) return;
    pending = true;
    const sentAt = performance.now();
    boundedStoreCall('renew', eventId, leaseMs, () => store.renew?.(eventId, lease, leaseMs)).then(
      (held) => {
        pending = false;
        if (held === false) hold.giveUp('lease-lost');
        else if (!hold.signal.aborted) heldUntil = Math.max(heldUntil, sentAt + leaseMs);
      },
      () => {
        pending = false;
      },
    );
  }, leaseMs / 3);
  const stop = () => clearInterval(timer);
  hold.signal.addEventListener('abort', stop, { once: true });
  return {
    stop: () => {
      stop();
      hold.signal.removeEventListener('abort', stop);
    },
    get heldUntil() {
      return heldUntil;
    },
  };
}
