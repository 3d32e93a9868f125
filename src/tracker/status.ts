import { announcedBy } from '../event-types.js';
import { isFinalStatus } from '../kinds.js';
import type { WebhookEvent } from '../webhooks/event.js';
import type { StatusChange } from './types.js';

export { statusOf } from '../kinds.js';

/** The default `isFinal`, from the kinds table (its final statuses and prefixes). */
export function defaultIsFinal(change: StatusChange): boolean {
  return isFinalStatus(change.kind, change.status);
}

/**
 * Whether `change` is the change `event` announced (from the event types table: `otc.trade.settled`
 * a `Settled` order, for example). Any change answers an event whose target state the spec does not
 * name. Until it is, the record keeps the nudge (the fast pace, and `source: 'webhook'` for the
 * change when it comes).
 */
export function announces(event: WebhookEvent, change: StatusChange): boolean {
  return announcedBy(event, change.status);
}
