import { CheckoutError } from '../../errors.js';
import { quote } from '../../internal/quote.js';

/** The work under a claim ends this long before its lease passes: 10% of `leaseMs`, at most 5 s. */
export function leaseMarginMs(leaseMs: number): number {
  return Math.min(leaseMs * 0.1, 5_000);
}

/**
 * Runs `work` with a signal that aborts a margin before the claim's lease passes (after which a redelivery could
 * run the event twice), or when `stop` does. `work` gets the deadline too, to start nothing that could not end by it.
 */
export async function withinLease<T>(
  eventId: string,
  leaseMs: number,
  claimedAt: number,
  step: string,
  work: (deadline: { signal: AbortSignal; at: number }) => Promise<T>,
  stop?: AbortSignal,
): Promise<T> {
  const at = claimedAt + leaseMs - leaseMarginMs(leaseMs);
  const controller = new AbortController();
  const abort = () => controller.abort(new LeaseDeadlineError(eventId, step));
  const stopped = () => controller.abort(stop?.reason);
  const remainingMs = at - performance.now();
  // already past it (a slow claim): abort now, not on a timer a fast step could beat
  if (remainingMs <= 0) abort();
  if (stop?.aborted === true) stopped();
  const timer = remainingMs > 0 ? setTimeout(abort, remainingMs) : undefined;
  stop?.addEventListener('abort', stopped, { once: true });
  try {
    return await work({ signal: controller.signal, at });
  } finally {
    clearTimeout(timer);
    stop?.removeEventListener('abort', stopped);
  }
}

export class LeaseDeadlineError extends CheckoutError {
  override readonly name = 'LeaseDeadlineError' as const;
  constructor(eventId: string, step = 'status read') {
    super(
      // true on both paths: a claim is released, and a nudge before any claim (tracker + onEvent) took none
      `The ${step} for event ${quote(eventId)} did not finish within the delivery's lease; ` +
        'nothing is acknowledged, so a redelivery runs the event',
    );
  }
}

/** A store that never answers must not hold the delivery, its background retries and `drain()` for ever. */
export function storeCallLimitMs(leaseMs: number): number {
  return Math.max(1, leaseMarginMs(leaseMs));
}

export async function boundedStoreCall<T>(step: StoreStep, eventId: string, leaseMs: number, call: () => Promise<T> | T): Promise<T> {
  const limitMs = storeCallLimitMs(leaseMs);
  const pending = Promise.resolve().then(call);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(step, eventId, limitMs)), limitMs);
  });
  try {
    return await Promise.race([pending, timedOut]);
  } finally {
    clearTimeout(timer);
    // a late rejection of a call given up is not an unhandled one
    pending.catch(() => undefined);
  }
}

export type StoreStep = 'complete' | 'release' | 'renew' | 'leaseLeftMs';

const GIVEN_UP: Readonly<Record<StoreStep, string>> = {
  complete: 'it is retried until the lease passes, after which a redelivery may run the event again',
  release: 'the claim lapses when its lease passes, and a redelivery runs the event then',
  renew: 'it is tried again at the next renewal; the claim lapses if none succeeds before its lease passes',
  leaseLeftMs: 'the 409 says to retry after the whole lease',
};

export class StoreTimeoutError extends CheckoutError {
  override readonly name = 'StoreTimeoutError' as const;
  constructor(step: StoreStep, eventId: string, limitMs: number) {
    super(
      `store.${step} for event ${quote(eventId)} did not answer within ${limitMs} ms (10% of leaseMs, at most 5 s) and was given up; ` +
        GIVEN_UP[step],
    );
  }
}
