import { CheckoutError, type ValidationIssue } from '../errors.js';
import { quote } from '../internal/quote.js';

/**
 * A webhook body that is not a valid event: not UTF-8, not JSON, not an object, or without a
 * non-empty string `eventId` and a string `type`. `issues` says what did not match; the message
 * never carries the body.
 *
 * @example
 * try {
 *   parseEvent(body);
 * } catch (error) {
 *   if (error instanceof WebhookPayloadError) console.warn(error.issues);
 * }
 */
export class WebhookPayloadError extends CheckoutError {
  override readonly name = 'WebhookPayloadError' as const;
  /** What did not match; a body that is not JSON gives one issue with code `invalid_json`. */
  readonly issues: readonly ValidationIssue[];

  constructor(message: string, issues: readonly ValidationIssue[]) {
    super(message);
    this.issues = issues;
  }
}

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
