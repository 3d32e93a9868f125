import type { StatusKind } from './tracker/kinds.js';

/** The argument of `drain(options)`. */
export interface DrainOptions {
  /** How long `drain()` waits for the work in hand, in milliseconds, before it resolves with what still runs. @default 10_000 */
  timeoutMs?: number | undefined;
}

/** What `drain()` resolves with: work still `inHand` at `timeoutMs` is given up, its claims and leases left to lapse, losing nothing. */
export interface DrainReport {
  /** `true` when every piece of work in hand finished (or gave back its claim) before `timeoutMs`. */
  drained: boolean;
  /** What was still in hand at `timeoutMs` (empty when `drained`). */
  inHand: InHandWork[];
}

/** One piece of work still in hand when `drain()` resolved. */
export type InHandWork = InHandDelivery | InHandRecord;

/** A webhook delivery still being handled (its `onEvent`, a status read, a retried `complete`). */
export interface InHandDelivery {
  /** Always `webhook.delivery`. */
  work: 'webhook.delivery';
  /** The event's `eventId`; `undefined` while its body was not yet verified. */
  eventId: string | undefined;
  /** The event's `type`; `undefined` while its body was not yet verified. */
  type: string | undefined;
}

/** A record the status tracker was still reading (or handing to `onChange`). */
export interface InHandRecord {
  /** Always `tracker.record`. */
  work: 'tracker.record';
  /** The record's kind. */
  kind: StatusKind;
  /** The record's externalId. */
  externalId: string;
}
