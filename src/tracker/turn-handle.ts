import { CallbackHold } from '../handling.js';
import { quote } from '../internal/quote.js';
import type { ClaimedStatusRecord, StatusLease } from './types.js';

/** This process's own clock for its deadlines: monotonic, so a wall-clock step never moves them. */
export const monotonic = (): number => performance.now();

/**
 * A record in this process's hands, its read abortable (drain) until its change is being handed over.
 * One handle per record: a claim of a record already in hand is adopted by the running turn.
 */
export class TurnHandle {
  readonly record: ClaimedStatusRecord;
  readonly controller = new AbortController();
  /** Given up past `maxHandlingMs`, by drain, or when the lease is found lost. */
  readonly hold: CallbackHold;
  lease: StatusLease;
  storeClaimedAt: number;
  claimedAtLocal: number;
  /** When the lease was last taken or extended, as its request was sent: never later than the store's start of it. */
  heldSince: number;
  /** Set once `onChange` has been called: from then on the turn is never aborted. */
  changing = false;
  adopted: ClaimedStatusRecord | undefined;
  sentWith: StatusLease | undefined;

  constructor(record: ClaimedStatusRecord) {
    this.record = record;
    this.hold = new CallbackHold('onChange', `${record.kind} ${quote(record.externalId)}`);
    this.lease = record.lease;
    this.storeClaimedAt = record.claimedAt;
    this.claimedAtLocal = monotonic();
    this.heldSince = this.claimedAtLocal;
  }

  /** Goes on under a later claim of this record (its lease lapsed to this process), so its change is recorded once. */
  adopt(record: ClaimedStatusRecord): void {
    this.adopted = record;
    this.lease = record.lease;
    this.storeClaimedAt = record.claimedAt;
    this.claimedAtLocal = monotonic();
    this.heldSince = this.claimedAtLocal;
  }

  extended(lease: StatusLease, sentAt: number): void {
    if (lease === this.lease) this.heldSince = Math.max(this.heldSince, sentAt);
  }

  /** The adopted claim no store operation used (the turn ended before it): it needs a turn of its own. */
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

  leaseEnds(leaseMs: number): number {
    return this.heldSince + leaseMs;
  }
}
