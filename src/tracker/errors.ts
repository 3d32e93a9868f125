import { CheckoutError } from '../errors.js';

/**
 * `MemoryStatusStore` holds `maxRecords` records that are all still watched, so it cannot start
 * watching another (records whose watch ended are dropped first, oldest first). Raise `maxRecords`
 * or use a shared store (`RedisStatusStore`, `PostgresStatusStore`).
 */
export class StatusStoreFullError extends CheckoutError {
  override readonly name = 'StatusStoreFullError' as const;
  /** The store's bound. */
  readonly maxRecords: number;

  constructor(maxRecords: number) {
    super(`MemoryStatusStore is full: ${maxRecords} records are watched (maxRecords); unwatch some or raise maxRecords`);
    this.maxRecords = maxRecords;
  }
}

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
