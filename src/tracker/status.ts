import { announcedBy } from '../event-types.js';
import { isFinalStatus } from '../kinds.js';
import type { WebhookEvent } from '../webhooks/event.js';
import type { StatusChange } from './types.js';

export { statusOf } from '../kinds.js';

export function defaultIsFinal(change: StatusChange): boolean {
  return isFinalStatus(change.kind, change.status);
}

/** Whether `change` is what `event` announced (any change is, for an event that names no target status); until then the nudge is kept. */
export function announces(event: WebhookEvent, change: StatusChange): boolean {
  return announcedBy(event, change.status);
}
