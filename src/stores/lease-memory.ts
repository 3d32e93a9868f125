/**
 * Past this many remembered leases, {@link LeaseMemory.remember} sweeps out the expired ones. It is
 * a soft bound: a live lease is never dropped.
 */
const SWEEP_AT_LEASES = 10_000;
/** An expired lease is forgotten only this long after it ended locally, so the store has surely expired it too. */
const FORGET_GRACE_MS = 5_000;

/**
 * The leases one store instance took, by event id, so `complete` and `release` called without a
 * lease act for this instance's last claim on the event (`RedisEventStore`, `PostgresEventStore`).
 */
export class LeaseMemory {
  /** eventId → the lease this instance holds on it, and when that lease ends (this process's monotonic clock). */
  readonly #leases = new Map<string, { token: string; until: number }>();
  /** `#leases` is swept of expired leases when it reaches this size; see `remember`. */
  #sweepAt = SWEEP_AT_LEASES;

  /** The last lease this instance took on `eventId`, while remembered. */
  get(eventId: string): string | undefined {
    return this.#leases.get(eventId)?.token;
  }

  /**
   * Keeps the lease token until complete or release. Forgetting a live lease would make its
   * `complete` find the lease held by "someone else" and lose the completion, so the bound is soft:
   * on reaching `#sweepAt` leases, only those expired (plus a grace) are dropped, and when live ones
   * still fill it the map grows, the next sweep waiting until it has doubled (so sweeping costs O(1)
   * per claim). Live leases are the claims this process made within one `leaseMs` and has not yet
   * completed or released, i.e. its work in progress, so memory follows that load and shrinks back
   * as leases end. A hard cap would only move the point where completions start to be lost.
   */
  rememberFor(eventId: string, token: string, leaseMs: number): void {
    this.#keep(eventId, token, performance.now() + leaseMs);
  }

  /**
   * As {@link LeaseMemory.rememberFor}, with the lease's end as a wall-clock time (`Date.now() +
   * leaseMs` just computed by the caller): converted at once to the monotonic clock, so a later
   * wall-clock step never moves it. Prefer `rememberFor`.
   */
  remember(eventId: string, token: string, until: number): void {
    this.#keep(eventId, token, performance.now() + (until - Date.now()));
  }

  #keep(eventId: string, token: string, until: number): void {
    this.#leases.delete(eventId);
    if (this.#leases.size >= this.#sweepAt) {
      const now = performance.now();
      for (const [id, lease] of this.#leases) {
        if (lease.until + FORGET_GRACE_MS < now) this.#leases.delete(id);
      }
      this.#sweepAt = Math.max(SWEEP_AT_LEASES, this.#leases.size * 2);
    }
    this.#leases.set(eventId, { token, until });
  }

  /** Drops the lease, unless a newer claim by this instance replaced it meanwhile. */
  forget(eventId: string, token: string): void {
    if (this.#leases.get(eventId)?.token === token) this.#leases.delete(eventId);
  }
}
