import { editDistance } from '../internal/arguments.js';
import { kindEntry, RECORD_KINDS, type RecordOf, type StatusKind } from '../kinds.js';
import { quoted } from './escape.js';
import { usage } from './exit-codes.js';

export type RecordKind = StatusKind;

/** The distinct statuses a record shows, its kind's own before a top-level `status`; the first is reported. */
export function statusesOf(kind: RecordKind, record: RecordOf<StatusKind>): string[] {
  const top = typeof record.status === 'string' ? record.status : undefined;
  const own = kindEntry(kind).statusOf(record);
  return [...new Set([own, top].filter((status): status is string => typeof status === 'string'))];
}

const isCancellation = (status: string) => /^cancel/i.test(status.trim());

/** Whether `status` is final by the kinds table, as the status tracker reads it (case and surrounding spaces ignored). */
export function isFinalStatus(kind: RecordKind, status: string): boolean {
  const s = status.trim().toLowerCase();
  const { finalStatuses, finalPrefixes } = RECORD_KINDS[kind];
  return finalStatuses.some((name) => name.toLowerCase() === s) || finalPrefixes.some((prefix) => s.startsWith(prefix));
}

/**
 * Whether `status` is the awaited one, ignoring case and surrounding spaces. Any cancellation
 * matches an awaited one: the spec does not fix the spelling (Canceled or Cancelled).
 */
export function statusMatches(status: string, wanted: string): boolean {
  const s = status.trim().toLowerCase();
  const w = wanted.trim().toLowerCase();
  return s === w || (isCancellation(w) && isCancellation(s));
}

/**
 * Checks `--wait-until` before any request; returns the warning to print, if any. The service's
 * statuses are not all published, so an unknown one is awaited with a warning, but a near-miss of a
 * named final status (`Setled`) is a usage error naming the likely spelling.
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
