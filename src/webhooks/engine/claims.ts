import { checkClaim, type CheckedClaim } from '../../stores/claim.js';
import { boundedStoreCall } from './lease-deadline.js';
import type { ResolvedOptions } from './resolve-options.js';
import type { CallbackHold } from '../../handling.js';

/** The store gives an `owner` its own live claims back, so an event this handler already holds is `in-flight` without asking. */
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

export function wholeLeaseSeconds(config: Pick<ResolvedOptions, 'leaseMs'>): number {
  return Math.max(1, Math.ceil(config.leaseMs / 1_000));
}

export interface ClaimRenewal {
  stop(): void;
  /** The last renewal sent plus `leaseMs`, on the monotonic clock. */
  readonly heldUntil: number;
}

/** Renews every third of `leaseMs`, one renewal at a time (a failed one waits for the next tick); a lost claim gives the hold up. */
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
