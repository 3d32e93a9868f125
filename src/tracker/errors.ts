import { CheckoutError } from '../errors.js';

/**
 * A status store operation did not answer within the tracker's time limit (a third of `leaseMs`,
 * the renewal interval). The tracker logs it as `store-failed` and goes on as after any store
 * failure: nothing it did not record is lost, the record's lease lapses and it is read again.
 */
export class StatusStoreTimeoutError extends CheckoutError {
  override readonly name = 'StatusStoreTimeoutError' as const;
  /** The store operation: `claimDue`, `extend`, `commit`, `transact`, `reschedule`, `release` or `reclaim`. */
  readonly operation: string;
  /** The time limit it ran past, in milliseconds. */
  readonly timeoutMs: number;

  constructor(operation: string, timeoutMs: number) {
    super(`status store ${operation} did not answer within ${timeoutMs} ms`);
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}
