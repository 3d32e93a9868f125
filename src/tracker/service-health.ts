import type { Schedule } from './schedule.js';

// "Back on its feet" (docs/tracker.md): a read that failed because of the service (no answer, a timeout, a
// 5xx, a 429) says nothing about its record, so the record keeps its normal schedule instead of a
// back-off of its own; the tracker as a whole holds back instead, one probe read at a time, and
// takes up every due record the moment a read is answered again. A record that fails on its own
// (a body that fails validation, a throwing onChange) keeps its own back-off.
//
// Why the tracker and not each record: per-record back-off left records waiting up to
// `maxIntervalMs` after the service came back (and a webhook could not cut it short), and during
// an outage each of N records still read the failing service on its own back-off; one probe per
// process at a time protects the service better and needs no store-wide "reset" after recovery.

/** Failures by the service in a row (no answer between them) after which the tracker holds back to probe reads. */
export const HOLD_BACK_AFTER_FAILURES = 3;

/** The most records whose missed reads this process counts (the oldest forgotten first). */
const MAX_MISSED_RECORDS = 10_000;

/** The client's errors that are the service's, not the record's, by their literal `name` (so another copy of the SDK counts too). */
// A refused secret (`AuthenticationError`) refuses every read alike, so it counts too: the records
// it failed are read again as soon as a call succeeds (a rotated secret, `resetCredentials()`).
const SERVICE_ERRORS: ReadonlySet<string> = new Set([
  'ServerError',
  'RateLimitError',
  'ConnectionError',
  'TimeoutError',
  'QueueFullError',
  'AuthenticationError',
]);

/** Whether a failed read failed because of the service (or the way to it, or a refused secret), not because of its record. */
export function isServiceFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (SERVICE_ERRORS.has(error.name)) return true;
  // an ApiError of a status without its own class (e.g. 502 from a proxy mapped to ApiError)
  const status = (error as { status?: unknown }).status;
  return error.name === 'ApiError' && typeof status === 'number' && (status >= 500 || status === 429 || status === 408);
}

/**
 * What this tracker knows of the service from its own reads: failing (held back to one probe read
 * at a time, `retryDelayMs` apart doubling up to `fastIntervalMs`) or answering.
 */
export class ServiceHealth {
  readonly #schedule: Schedule;
  readonly #recovered: () => void;
  #failuresInRow = 0;
  /** Per record (`kind:externalId`): its reads the service failed since its last answered one, in this process. */
  readonly #missed = new Map<string, number>();

  /** `recovered` is called when a read is answered after the tracker held back (the loop claims at once). */
  constructor(schedule: Schedule, recovered: () => void) {
    this.#schedule = schedule;
    this.#recovered = recovered;
  }

  /** Whether reads are held back to one probe at a time. */
  get holdingBack(): boolean {
    return this.#failuresInRow >= HOLD_BACK_AFTER_FAILURES;
  }

  /** A read failed because of the service. */
  failed(): void {
    this.#failuresInRow += 1;
  }

  /** The service answered a read (whatever the answer: a 404 or a bad body is the record's, not the service's). */
  answered(): void {
    const was = this.holdingBack;
    this.#failuresInRow = 0;
    if (was) this.#recovered();
  }

  /**
   * A read of `record` failed because of the service while other reads are answered: how many in a
   * row now (this process's count). Its wait doubles with each, so a record whose reads alone fail
   * settles back to its own schedule.
   */
  missedRead(record: string): number {
    const missed = (this.#missed.get(record) ?? 0) + 1;
    this.#missed.delete(record);
    this.#missed.set(record, missed);
    if (this.#missed.size > MAX_MISSED_RECORDS) this.#missed.delete(this.#missed.keys().next().value!);
    return missed;
  }

  /** A read of `record` was answered: its count of missed reads starts again. */
  answeredRead(record: string): void {
    this.#missed.delete(record);
  }

  /** The wait before the next probe read: `retryDelayMs`, doubling with each failed probe, at most `fastIntervalMs` (a fast record's pace). */
  probeWaitMs(): number {
    const { retryDelayMs, fastIntervalMs } = this.#schedule;
    const probes = this.#failuresInRow - HOLD_BACK_AFTER_FAILURES;
    return Math.max(1, Math.min(Math.max(fastIntervalMs, retryDelayMs), retryDelayMs * 2 ** Math.min(20, Math.max(0, probes))));
  }
}
