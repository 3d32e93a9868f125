import type { ResolvedTrackerOptions } from './options.js';
import { plainError } from './logger.js';
import { bounded } from './store-call.js';
import type { TurnLog } from './turn-context.js';
import { monotonic, type TurnHandle } from './turn-handle.js';
import type { CallbackHold } from '../handling.js';

/** Extends the lease every third of `leaseMs` while `onChange` runs; a lease found lost gives the hold up. */
export class Heartbeat {
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #hold: CallbackHold;
  readonly #stop = () => clearInterval(this.#timer);

  constructor(config: ResolvedTrackerOptions, handle: TurnHandle, log: TurnLog) {
    this.#hold = handle.hold;
    this.#timer = setInterval(() => {
      const sentAt = monotonic();
      const lease = handle.lease;
      bounded(config.storeTimeoutMs, 'extend', config.store.extend(lease, { leaseMs: config.leaseMs })).then(
        (held) => {
          if (held) handle.extended(lease, sentAt);
          else if (lease === handle.lease) handle.hold.giveUp('lease-lost');
        },
        (error: unknown) => log({ event: 'tracker.store-failed', error: plainError(error) }),
      );
    }, config.leaseMs / 3);
    this.#hold.signal.addEventListener('abort', this.#stop, { once: true });
  }

  stop(): void {
    this.#stop();
    this.#hold.signal.removeEventListener('abort', this.#stop);
  }
}
