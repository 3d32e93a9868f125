import { CheckoutError, type ValidationIssue } from '../errors.js';

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
