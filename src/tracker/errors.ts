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
