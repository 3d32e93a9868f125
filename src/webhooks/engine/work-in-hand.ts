import type { DrainReport, InHandDelivery } from '../../drain.js';
import type { DeliveryProgress } from './delivery-types.js';

/**
 * Every delivery's work and the background work it handed on, still running, with what is known
 * of its event; and one body-read controller per delivery in progress, so `drain()` can stop the
 * bodies still arriving.
 */
export class WorkInHand {
  readonly #work = new Map<Promise<unknown>, DeliveryProgress>();
  readonly #bodyReads = new Set<AbortController>();

  /** A controller for a new delivery's body read, dropped when its work ends (see {@link add}). */
  bodyRead(): AbortController {
    const bodyRead = new AbortController();
    this.#bodyReads.add(bodyRead);
    return bodyRead;
  }

  /** Work in hand now: deliveries and what they handed on past their answer. */
  get size(): number {
    return this.#work.size;
  }

  /** Holds `work` (which never rejects) until it settles, then drops it and its body read. */
  add(work: Promise<unknown>, progress: DeliveryProgress, bodyRead?: AbortController): void {
    this.#work.set(work, progress);
    void work.finally(() => {
      this.#work.delete(work);
      if (bodyRead !== undefined) this.#bodyReads.delete(bodyRead);
    });
  }

  /** Stops every body still arriving with `reason`: such a delivery is answered 503 and redelivered. */
  abortBodyReads(reason: unknown): void {
    for (const bodyRead of this.#bodyReads) bodyRead.abort(reason);
  }

  /** Waits until nothing is in hand (work may hand on background work meanwhile: that too), or `deadline` resolves. */
  async settle(deadline: Promise<true>): Promise<DrainReport> {
    while (this.#work.size > 0) {
      const timedOut = await Promise.race([Promise.allSettled([...this.#work.keys()]), deadline]);
      if (timedOut === true) return this.report();
    }
    return this.report();
  }

  /** Gives up every delivery still in hand (`drain()` waited long enough): claims no longer renewed, `onEvent` no longer waited for. */
  giveUp(): void {
    for (const progress of this.#work.values()) progress.hold?.giveUp('drain');
  }

  /** What is still in hand; a delivery and the background work it handed on count once. */
  report(): DrainReport {
    const deliveries = [...new Set(this.#work.values())].map(({ eventId, type }): InHandDelivery => ({
      work: 'webhook.delivery',
      eventId,
      type,
    }));
    return { drained: deliveries.length === 0, inHand: deliveries };
  }
}
