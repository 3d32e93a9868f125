import { CallbackHold } from '../handling.js';
import { quote } from '../internal/quote.js';
import type { ClaimedStatusRecord, StatusLease } from './types.js';

/** This process's own clock for its deadlines: monotonic, so a wall-clock step never moves them. */
export const monotonic = (): number => performance.now();

/**
 * A record in this process's hands. Its read can be aborted (drain) until its change is being
 * handed over. The tracker holds one handle per record (kind and externalId), never two: a claim
 * that hands this process a record it already holds (its lease lapsed while the turn ran, and the
 * store gave it back) is adopted by the running turn (see {@link TurnHandle.adopt}).
 */
export class TurnHandle {
  readonly record: ClaimedStatusRecord;
  readonly controller = new AbortController();
  /** The hold on the change this turn hands over: given up past `maxHandlingMs`, by drain, or when the lease is found lost. */
  readonly hold: CallbackHold;
  /** The lease the turn acts under: the claim's, or a later claim's once adopted. */
  lease: StatusLease;
  /** The store's clock at the latest claim (`claimedAt`): ages are measured from it, on the store's clock. */
  storeClaimedAt: number;
  /** This process's monotonic clock at the latest claim (pairs with `storeClaimedAt`). */
  claimedAtLocal: number;
  /**
   * This process's monotonic clock when the lease was last taken or extended (when the request was
   * sent, so never later than the store's own start of the lease): how long the process may still
   * act on the lease is measured from it, never from a wall clock.
   */
  heldSince: number;
  /** Set once `onChange` has been called: from then on the turn is finished, never aborted. */
  changing = false;
  /** A later claim of this same record while the turn ran, when there was one. */
  adopted: ClaimedStatusRecord | undefined;
  /** The last lease a store operation of the turn was sent with. */
  sentWith: StatusLease | undefined;

  constructor(record: ClaimedStatusRecord) {
    this.record = record;
    this.hold = new CallbackHold('onChange', `${record.kind} ${quote(record.externalId)}`);
    this.lease = record.lease;
    this.storeClaimedAt = record.claimedAt;
    this.claimedAtLocal = monotonic();
    this.heldSince = this.claimedAtLocal;
  }

  /**
   * Takes over a later claim of the record in hand: the running turn goes on under the new lease
   * (its deadlines counted from now), so the change it may be handing over is recorded once,
   * instead of a second `onChange` for the same record. Its lease was lost to this same process.
   */
  adopt(record: ClaimedStatusRecord): void {
    this.adopted = record;
    this.lease = record.lease;
    this.storeClaimedAt = record.claimedAt;
    this.claimedAtLocal = monotonic();
    this.heldSince = this.claimedAtLocal;
  }

  /** The lease was extended by a request sent at `sentAt` (monotonic) under `lease`. */
  extended(lease: StatusLease, sentAt: number): void {
    if (lease === this.lease) this.heldSince = Math.max(this.heldSince, sentAt);
  }

  /** The adopted claim when no store operation of the turn used its lease (the turn ended before): it needs a turn of its own. */
  takeUnused(): ClaimedStatusRecord | undefined {
    const adopted = this.adopted;
    if (adopted === undefined || this.sentWith === adopted.lease) return undefined;
    this.adopted = undefined;
    return adopted;
  }

  /** The store's clock now, as this process reckons it: the claim's `claimedAt` plus the monotonic time since. */
  storeNow(): number {
    return this.storeClaimedAt + (monotonic() - this.claimedAtLocal);
  }

  /** When the lease ends as far as this process knows (monotonic clock), unless extended. */
  leaseEnds(leaseMs: number): number {
    return this.heldSince + leaseMs;
  }
}
