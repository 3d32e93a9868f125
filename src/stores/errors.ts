import { CheckoutError } from '../errors.js';
import { quote } from '../internal/quote.js';

/**
 * A store's `complete` was refused because the caller's lease ran out and another worker claimed the
 * event since: that worker's claim is left alone. The webhook handler retries `complete` while its
 * own lease would have held, then logs the failure; a redelivery may run the event again if the
 * other worker's claim ends without completing.
 */
export class LeaseLostError extends CheckoutError {
  override readonly name = 'LeaseLostError' as const;
  /** The event whose claim was lost. */
  readonly eventId: string;

  constructor(eventId: string) {
    super(
      `The event ${quote(eventId)} was not marked done: this worker's lease on it ran out and another worker claimed it, ` +
        'whose claim is left alone',
    );
    this.eventId = eventId;
  }
}

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
 * With `NODE_ENV=production`, a webhook handler (with `onEvent`) or a status tracker made without a
 * `store` refuses to start: its in-memory default dedupes in one process only, so across a fleet
 * or a restart the same event or change is handled again. Pass a shared store, or the memory store
 * explicitly for a single instance.
 */
export class StoreRequiredError extends CheckoutError {
  override readonly name = 'StoreRequiredError' as const;
}
