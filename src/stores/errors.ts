import { CheckoutError } from '../errors.js';
import { quote } from '../internal/quote.js';

/** A `complete` refused: the caller's lease ran out and another worker claimed the event since (that claim is left alone). */
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

/** `MemoryStatusStore` holds `maxRecords` records, all still watched, so it cannot watch one more: raise it or use a shared store. */
export class StatusStoreFullError extends CheckoutError {
  override readonly name = 'StatusStoreFullError' as const;
  /** The store's bound. */
  readonly maxRecords: number;

  constructor(maxRecords: number) {
    super(`MemoryStatusStore is full: ${maxRecords} records are watched (maxRecords); unwatch some or raise maxRecords`);
    this.maxRecords = maxRecords;
  }
}

/** With `NODE_ENV=production`, a webhook handler or tracker without a `store` refuses to start: memory dedupes in one process only. */
export class StoreRequiredError extends CheckoutError {
  override readonly name = 'StoreRequiredError' as const;
}
