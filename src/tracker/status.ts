import { announcedBy } from '../event-types.js';
import { isFinalStatus } from '../kinds.js';
import type { WebhookEvent } from '../webhooks/event.js';
import type { StatusChange } from './types.js';

export { statusOf } from '../kinds.js';

/**
 * The default `isFinal`, from the kinds table: an order `Settled` or cancelled (a status that
 * begins with "cancel", as the webhook handler reads `otc.trade.cancelled`), a withdrawal
 * `Completed`, failed, cancelled or rejected. The spec names only `Settled` and `Completed`; the
 * prefixes cover the unnamed ends.
 */
export function defaultIsFinal(change: StatusChange): boolean {
  return isFinalStatus(change.kind, change.status);
}

/**
 * Whether `change` is the change `event` announced (from the event types table):
 * `otc.trade.settled` a `Settled` order, `otc.trade.cancelled` a cancelled one,
 * `pix.withdrawal.settled` a `Completed` withdrawal. Any change answers an event whose target
 * state the spec does not name. Until it is, the record keeps the nudge (the fast pace, and
 * `source: 'webhook'` for the change when it comes).
 */
export function announces(event: WebhookEvent, change: StatusChange): boolean {
  return announcedBy(event, change.status);
}
