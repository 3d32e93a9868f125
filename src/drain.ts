import type { StatusKind } from './tracker/kinds.js';

// The one shutdown contract of the webhook handler and the status tracker: `drain({ timeoutMs })`
// resolves a `DrainReport`. Their defaults (10 s + 10 s) fit one 30 s termination grace period
// (Kubernetes' default, Cloud Run's and ECS's order of magnitude) drained one after the other,
// after a ~2 s pre-stop wait, with 8 s left for closing the server and the pools. The handler's 10 s
// is past its 8 s response deadline: what runs longer was answered 503 and is redelivered anyway.

/**
 * The argument of `drain(options)`.
 */
export interface DrainOptions {
  /**
   * How long `drain()` waits for the work in hand, in milliseconds, before it resolves with what
   * is still running.
   * @default 10_000 for the webhook handler, 10_000 for the status tracker: 20 s together
   */
  timeoutMs?: number | undefined;
}

/**
 * What `drain()` resolves with. When `drained` is `false`, the work listed in `inHand` was still
 * running at `timeoutMs`, and is given up: its claims and leases are no longer renewed and lapse
 * within `leaseMs`, its callback's signal aborts, and nothing of the SDK's keeps the process alive.
 * The provider's redeliveries, or another process, run it again. Nothing is lost.
 */
export interface DrainReport {
  /** `true` when every piece of work in hand finished (or gave back its claim) before `timeoutMs`. */
  drained: boolean;
  /** What was still in hand at `timeoutMs` (empty when `drained`). */
  inHand: InHandWork[];
}

/**
 * One piece of work still in hand when `drain()` resolved.
 */
export type InHandWork = InHandDelivery | InHandRecord;

/**
 * A webhook delivery still being handled (its `onEvent`, a status read, a retried `complete`).
 */
export interface InHandDelivery {
  /** Always `webhook.delivery`. */
  work: 'webhook.delivery';
  /** The event's `eventId`; `undefined` while its body was not yet verified. */
  eventId: string | undefined;
  /** The event's `type`; `undefined` while its body was not yet verified. */
  type: string | undefined;
}

/**
 * A record the status tracker was still reading (or handing to `onChange`).
 */
export interface InHandRecord {
  /** Always `tracker.record`. */
  work: 'tracker.record';
  /** The record's kind. */
  kind: StatusKind;
  /** The record's externalId. */
  externalId: string;
}
