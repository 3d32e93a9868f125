import { CheckoutError, type ValidationIssue } from '../errors.js';

/** A webhook body that is not a valid event (not UTF-8 JSON, or no `eventId` or `type`); the message never carries the body. */
export class WebhookPayloadError extends CheckoutError {
  override readonly name = 'WebhookPayloadError' as const;
  /** What did not match; a body that is not JSON gives one issue with code `invalid_json`. */
  readonly issues: readonly ValidationIssue[];

  constructor(message: string, issues: readonly ValidationIssue[]) {
    super(message);
    this.issues = issues;
  }
}
