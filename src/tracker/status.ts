import type { Order, Withdrawal } from '../schemas.js';
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
