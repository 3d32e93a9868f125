import type { Order, Withdrawal } from '../schemas.js';
import type { WebhookEvent } from '../webhooks/event.js';
import type { StatusChange, StatusKind } from './types.js';

/** A record's status: an order's `settlement.status` (`null` when it has none), a withdrawal's `status`. */
export function statusOf(kind: StatusKind, record: Order | Withdrawal): string | null {
  if (kind === 'withdrawal') return (record as Withdrawal).status;
  const status = (record as Order).settlement?.status;
  return typeof status === 'string' ? status : null;
}

/**
 * The default `isFinal`: an order `Settled` or cancelled (a status that begins with "cancel", as the
 * webhook handler reads `otc.trade.cancelled`), a withdrawal `Completed`, failed, cancelled or
 * rejected. The spec names only `Settled` and `Completed`; the prefixes cover the unnamed ends.
 */
export function defaultIsFinal(change: StatusChange): boolean {
  const { status } = change;
  if (status === null) return false;
  if (change.kind === 'order') return status === 'Settled' || /^cancel/i.test(status);
  return status === 'Completed' || /^(fail|cancel|reject)/i.test(status);
}

/**
 * Whether `change` is the change `event` announced: `otc.trade.settled` a `Settled` order,
 * `otc.trade.cancelled` a cancelled one, `pix.withdrawal.settled` a `Completed` withdrawal. Any
 * change answers an event whose target state the spec does not name. Until it is, the record keeps
 * the nudge (the fast pace, and `source: 'webhook'` for the change when it comes).
 */
export function announces(event: WebhookEvent, change: StatusChange): boolean {
  const { status } = change;
  if (event.type === 'otc.trade.settled') return status === 'Settled';
  if (event.type === 'otc.trade.cancelled') return status !== null && /^cancel/i.test(status);
  if (event.type === 'pix.withdrawal.settled') return status === 'Completed';
  return true;
}
