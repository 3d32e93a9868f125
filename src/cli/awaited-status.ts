import type { Order, Withdrawal } from '../index.js';
import { editDistance } from '../internal/arguments.js';
import { quoted } from './escape.js';
import { usage } from './exit-codes.js';

export type RecordKind = 'order' | 'withdrawal';

/**
 * The statuses a record shows: an order's `settlement.status` and its top-level `status` (it may
 * carry both), a withdrawal's `status`. The first is the one reported.
 */
export function statusesOf(kind: RecordKind, record: Order | Withdrawal): string[] {
  const top = typeof record.status === 'string' ? record.status : undefined;
  if (kind === 'withdrawal') return top === undefined ? [] : [top];
  const settlement = (record as Order).settlement?.status;
  return [settlement, top].filter((status): status is string => typeof status === 'string');
}

const isCancellation = (status: string) => /^cancel/i.test(status.trim());

/**
 * Whether `status` can change no more. The spec names `Settled` (orders) and `Completed`
 * (withdrawals) and says a swap can be cancelled without naming the value; as the status tracker,
 * the CLI takes a status beginning with "cancel" (any case) for a cancellation, and for a
 * withdrawal one beginning with "fail" for a failure. Every other status may still change.
 */
export function isFinalStatus(kind: RecordKind, status: string): boolean {
  const s = status.trim().toLowerCase();
  if (isCancellation(s)) return true;
  return kind === 'order' ? s === 'settled' : s === 'completed' || s.startsWith('fail');
}

/**
 * Whether `status` is the awaited one: equal ignoring case and surrounding spaces; any
 * cancellation for an awaited cancellation (the service's spelling, Canceled or Cancelled, is not
 * named by the spec).
 */
export function statusMatches(status: string, wanted: string): boolean {
  const s = status.trim().toLowerCase();
  const w = wanted.trim().toLowerCase();
  return s === w || (isCancellation(w) && isCancellation(s));
}

/** The final statuses the spec names, per kind: what a near-miss is checked against. */
const NAMED: Record<RecordKind, readonly string[]> = { order: ['Settled', 'Cancelled'], withdrawal: ['Completed', 'Cancelled', 'Failed'] };

/**
 * Checks `--wait-until`'s value before any request. The service's full set of statuses is not
 * published, so an unknown value cannot be refused outright: it is waited for with a warning. A
 * near-miss of a named one (`Setled`, `Complete`) is refused (exit 2) with the likely spelling,
 * since it would only ever end at the timeout or at a final status.
 * Returns the warning to print, if any.
 */
export function checkAwaited(kind: RecordKind, wanted: string): string | undefined {
  const w = wanted.trim().toLowerCase();
  if (w === '') throw usage(`--wait-until needs a status, e.g. ${NAMED[kind][0]}`, kind);
  if (isCancellation(w) || NAMED[kind].some((name) => name.toLowerCase() === w)) return undefined;
  const near = NAMED[kind].find((name) => w.length >= 4 && editDistance(w, name.toLowerCase()) <= 2);
  if (near !== undefined) throw usage(`--wait-until ${quoted(wanted)} is not ${article(kind)} status: did you mean ${near}?`, kind);
  return (
    `checkout-partner: warning: ${quoted(wanted)} is not ${article(kind)} status the spec names (${NAMED[kind].join(', ')}); ` +
    'waiting for it anyway, until it is reached, a final status or --timeout\n'
  );
}

const article = (kind: RecordKind) => (kind === 'order' ? 'an order' : 'a withdrawal');
