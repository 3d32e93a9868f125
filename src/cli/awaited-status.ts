import { editDistance } from '../internal/arguments.js';
import { kindEntry, RECORD_KINDS, type RecordOf, type StatusKind } from '../kinds.js';
import { quoted } from './escape.js';
import { usage } from './exit-codes.js';

/** The kinds of record the CLI reads (the kinds table's). */
export type RecordKind = StatusKind;

/**
 * The statuses a record shows: its kind's status (an order's `settlement.status`, for example)
 * and a top-level `status` (an order may carry both). The first is the one reported.
 */
export function statusesOf(kind: RecordKind, record: RecordOf<StatusKind>): string[] {
  const top = typeof record.status === 'string' ? record.status : undefined;
  const own = kindEntry(kind).statusOf(record);
  return [...new Set([own, top].filter((status): status is string => typeof status === 'string'))];
}

const isCancellation = (status: string) => /^cancel/i.test(status.trim());

/**
 * Whether `status` can change no more, by the kinds table, as the status tracker reads it (an order
 * `Settled` or cancelled, for example), ignoring case and surrounding spaces. Every other status may
 * still change.
 */
export function isFinalStatus(kind: RecordKind, status: string): boolean {
  const s = status.trim().toLowerCase();
  const { finalStatuses, finalPrefixes } = RECORD_KINDS[kind];
  return finalStatuses.some((name) => name.toLowerCase() === s) || finalPrefixes.some((prefix) => s.startsWith(prefix));
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

/**
 * Checks `--wait-until`'s value before any request. The service's full set of statuses is not
 * published, so an unknown value cannot be refused outright: it is waited for with a warning. A
 * near-miss of a final status the kinds table names (`Setled`, `Complete`) is refused (exit 2) with
 * the likely spelling, since it would only ever end at the timeout or at a final status.
 * Returns the warning to print, if any.
 */
export function checkAwaited(kind: RecordKind, wanted: string, command: string = kind): string | undefined {
  const { finalStatuses: named, named: article } = RECORD_KINDS[kind];
  const w = wanted.trim().toLowerCase();
  if (w === '') throw usage(`--wait-until needs a status, e.g. ${named[0]}`, command);
  if (isCancellation(w) || named.some((name) => name.toLowerCase() === w)) return undefined;
  const near = named.find((name) => w.length >= 4 && editDistance(w, name.toLowerCase()) <= 2);
  if (near !== undefined) throw usage(`--wait-until ${quoted(wanted)} is not ${article} status: did you mean ${near}?`, command);
  return (
    `checkout-partner: warning: ${quoted(wanted)} is not ${article} status the spec names (${named.join(', ')}); ` +
    'waiting for it anyway, until it is reached, a final status or --timeout\n'
  );
}
