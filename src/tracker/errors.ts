import { CheckoutError } from '../errors.js';

/**
 * A status store operation did not answer within a third of `leaseMs`. The tracker logs it as
 * `store-failed`; the record's lease lapses and it is read again, losing nothing.
 */
export class StatusStoreTimeoutError extends CheckoutError {
  override readonly name = 'StatusStoreTimeoutError' as const;
  /** The store operation that did not answer (`claimDue`, `commit`, ...). */
  readonly operation: string;
  /** The time limit it ran past, in milliseconds. */
  readonly timeoutMs: number;

  constructor(operation: string, timeoutMs: number) {
    super(`status store ${operation} did not answer within ${timeoutMs} ms`);
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}
