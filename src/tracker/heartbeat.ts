import type { ResolvedTrackerOptions } from './options.js';
import { plainError } from './logger.js';
import { bounded } from './store-call.js';
import type { TurnLog } from './turn-context.js';
import { monotonic, type TurnHandle } from './turn-handle.js';

/** Extends the lease every third of `leaseMs` while `onChange` runs, so a slow one keeps it. */
export class Heartbeat {
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(config: ResolvedTrackerOptions, handle: TurnHandle, log: TurnLog) {
    this.#timer = setInterval(() => {
      const sentAt = monotonic();
      const lease = handle.lease;
      // a lease found lost is reported once, by the commit that then fails
      bounded(config.storeTimeoutMs, 'extend', config.store.extend(lease, { leaseMs: config.leaseMs })).then(
        (held) => {
          if (held) handle.extended(lease, sentAt);
        },
        (error: unknown) => log({ event: 'tracker.store-failed', error: plainError(error) }),
      );
    }, config.leaseMs / 3);
  }

  /** Stops extending: `onChange` has returned (or thrown). */
  stop(): void {
    clearInterval(this.#timer);
  }
}
