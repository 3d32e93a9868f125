import type { DrainReport, InHandDelivery } from '../../drain.js';
import type { DeliveryProgress } from './delivery-types.js';

/** Every delivery's work and what it handed on, and the body reads `drain()` stops. */
export class WorkInHand {
  readonly #work = new Map<Promise<unknown>, DeliveryProgress>();
  readonly #bodyReads = new Set<AbortController>();

  bodyRead(): AbortController {
    const bodyRead = new AbortController();
    this.#bodyReads.add(bodyRead);
    return bodyRead;
  }

  get size(): number {
    return this.#work.size;
  }

  add(work: Promise<unknown>, progress: DeliveryProgress, bodyRead?: AbortController): void {
    this.#work.set(work, progress);
    void work.finally(() => {
      this.#work.delete(work);
      if (bodyRead !== undefined) this.#bodyReads.delete(bodyRead);
    });
  }

  abortBodyReads(reason: unknown): void {
    for (const bodyRead of this.#bodyReads) bodyRead.abort(reason);
  }

  /** Loops, as work may hand on background work meanwhile. */
  async settle(deadline: Promise<true>): Promise<DrainReport> {
    while (this.#work.size > 0) {
      const timedOut = await Promise.race([Promise.allSettled([...this.#work.keys()]), deadline]);
      if (timedOut === true) return this.report();
    }
    return this.report();
  }

  giveUp(): void {
    for (const progress of this.#work.values()) progress.hold?.giveUp('drain');
  }

  /** A delivery and the background work it handed on count once. */
  report(): DrainReport {
    const deliveries = [...new Set(this.#work.values())].map(({ eventId, type }): InHandDelivery => ({
      work: 'webhook.delivery',
      eventId,
      type,
    }));
    return { drained: deliveries.length === 0, inHand: deliveries };
  }
}
