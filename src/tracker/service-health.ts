import type { Schedule } from './schedule.js';

// A read the service failed says nothing about its record: the record keeps its schedule and the
// tracker as a whole holds back to one probe read at a time, so every due record is read once a read
// is answered again (docs/tracker.md). A record failing on its own keeps its own back-off.

/** Failures by the service in a row (no answer between them) after which the tracker holds back to probe reads. */
export const HOLD_BACK_AFTER_FAILURES = 3;

const MAX_MISSED_RECORDS = 10_000;

/** By literal `name`, so another copy of the SDK counts too; a refused secret refuses every read alike. */
const SERVICE_ERRORS: ReadonlySet<string> = new Set([
  'ServerError',
  'RateLimitError',
  'ConnectionError',
  'TimeoutError',
  'QueueFullError',
  'AuthenticationError',
]);

export function isServiceFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (SERVICE_ERRORS.has(error.name)) return true;
  // a status without its own class (a proxy's 502)
  const status = (error as { status?: unknown }).status;
  return error.name === 'ApiError' && typeof status === 'number' && (status >= 500 || status === 429 || status === 408);
}

export class ServiceHealth {
  readonly #schedule: Schedule;
  readonly #recovered: () => void;
  #failuresInRow = 0;
  readonly #missed = new Map<string, number>();

  constructor(schedule: Schedule, recovered: () => void) {
    this.#schedule = schedule;
    this.#recovered = recovered;
  }

  get holdingBack(): boolean {
    return this.#failuresInRow >= HOLD_BACK_AFTER_FAILURES;
  }

  failed(): void {
    this.#failuresInRow += 1;
  }

  /** Any answer counts: a 404 or a bad body is the record's failure, not the service's. */
  answered(): void {
    const was = this.holdingBack;
    this.#failuresInRow = 0;
    if (was) this.#recovered();
  }

  /** Counts the reads of `record` the service failed in a row: its wait doubles with each, back to its own schedule. */
  missedRead(record: string): number {
    const missed = (this.#missed.get(record) ?? 0) + 1;
    this.#missed.delete(record);
    this.#missed.set(record, missed);
    if (this.#missed.size > MAX_MISSED_RECORDS) this.#missed.delete(this.#missed.keys().next().value!);
    return missed;
  }

  answeredRead(record: string): void {
    this.#missed.delete(record);
  }

  probeWaitMs(): number {
    const { retryDelayMs, fastIntervalMs } = this.#schedule;
    const probes = this.#failuresInRow - HOLD_BACK_AFTER_FAILURES;
    return Math.max(1, Math.min(Math.max(fastIntervalMs, retryDelayMs), retryDelayMs * 2 ** Math.min(20, Math.max(0, probes))));
  }
}
