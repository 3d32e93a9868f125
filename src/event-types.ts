import { kindEntry, STATUS_KINDS, statusOf, type RecordOf, type StatusKind } from './kinds.js';
import type { KnownEventTypes, WebhookEvent } from './webhook-event.js';

// The one table of provider event types: each one's record kind, checked fields, announced status and key.

export type FieldCheck = 'string' | 'strings';

export interface EventTypeEntry {
  /** The kind of record the event is about: the one read to confirm it, and nudged in the tracker. */
  readonly kind: StatusKind;
  /** The fields the type declares, each refused by `parseEvent` when present with another type. */
  readonly fields?: Readonly<Record<string, FieldCheck>>;
  /** Whether a status is the one the event announces; absent where the spec names none (never confirmed). */
  readonly announces?: (status: string | null) => boolean;
  /** The event field holding a value the record's read reveals (its kind's `keys`): it must match to confirm, and finds the record. */
  readonly key?: string;
  /** Where the event carries its record's externalId (`['data', 'externalId']`), used when the partner gives no resolver. */
  readonly idPath?: readonly [string, ...string[]];
}

const isCancellation = (status: string | null) => status !== null && /^cancel/i.test(status);

export const EVENT_TYPES: { readonly [T in keyof KnownEventTypes]: EventTypeEntry } & Readonly<Record<string, EventTypeEntry>> = {
  'otc.trade.settled': { kind: 'order', key: 'tradeId', fields: { tradeId: 'string' }, announces: (status) => status === 'Settled' },
  // the spec names no cancelled value: any status that begins with "cancel", any case
  'otc.trade.cancelled': { kind: 'order', key: 'tradeId', fields: { tradeId: 'string' }, announces: isCancellation },
  'otc.trade.*': { kind: 'order', key: 'tradeId' },
  'pix.deposit.*': { kind: 'order', fields: { endUserId: 'string', tags: 'strings' } },
  'pix.withdrawal.settled': { kind: 'withdrawal', announces: (status) => status === 'Completed' },
  'pix.withdrawal.*': { kind: 'withdrawal' },
};

export function eventTypeOf(type: string): EventTypeEntry | undefined {
  if (Object.hasOwn(EVENT_TYPES, type)) return EVENT_TYPES[type];
  for (const [pattern, entry] of Object.entries(EVENT_TYPES)) {
    if (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))) return entry;
  }
  return undefined;
}

export function eventPatterns(kind: StatusKind): string[] {
  const own = Object.entries(EVENT_TYPES)
    .filter(([, entry]) => entry.kind === kind)
    .map(([pattern]) => pattern);
  const wildcards = own.filter((pattern) => pattern.endsWith('.*'));
  return own.filter((pattern) => pattern.endsWith('.*') || !wildcards.some((w) => pattern.startsWith(w.slice(0, -1))));
}

/** The kinds with an event type carrying no externalId: only a resolver, or a tracker's lookup, finds its record. @internal */
export const KINDS_RESOLVED = STATUS_KINDS.filter((kind) =>
  Object.values(EVENT_TYPES).some((entry) => entry.kind === kind && entry.idPath === undefined),
);

export function fieldChecks(type: string): [path: readonly [string, ...string[]], check: FieldCheck][] {
  const entry = eventTypeOf(type);
  if (entry === undefined) return [];
  const checks = Object.entries(entry.fields ?? {}).map(([field, check]): [[string], FieldCheck] => [[field], check]);
  return entry.idPath === undefined ? checks : [...checks, [entry.idPath, 'string']];
}

/** The value at `path`: `undefined` past an absent or `null` step; `blocked` names a step that is there but not an object. @internal */
export function valueAt(payload: unknown, path: readonly string[]): { value: unknown; blocked?: string | undefined } {
  let value = payload;
  for (const [index, step] of path.entries()) {
    if (value === undefined || value === null) return { value: undefined };
    if (typeof value !== 'object' || Array.isArray(value)) return { value: undefined, blocked: path.slice(0, index).join('.') };
    value = Object.hasOwn(value, step) ? (value as Record<string, unknown>)[step] : undefined;
  }
  return { value };
}

export function eventRecordId(event: WebhookEvent): string | undefined {
  const path = eventTypeOf(event.type)?.idPath;
  if (path === undefined) return undefined;
  const { value } = valueAt(event, path);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function eventKey(event: WebhookEvent): { kind: StatusKind; key: string; value: string } | undefined {
  const entry = eventTypeOf(event.type);
  if (entry?.key === undefined) return undefined;
  const value = event[entry.key];
  return typeof value === 'string' && value !== '' ? { kind: entry.kind, key: entry.key, value } : undefined;
}

/** A read confirms the event when it shows the announced status and, for a type with a key, the event's value. @internal */
export function confirmsEvent(event: WebhookEvent): ((record: RecordOf<StatusKind>) => boolean) | undefined {
  const entry = eventTypeOf(event.type);
  const announces = entry?.announces;
  if (entry === undefined || announces === undefined) return undefined;
  const { kind, key } = entry;
  const wanted = key === undefined ? undefined : event[key];
  return (record) => {
    if (key !== undefined) {
      const shown = kindEntry(kind).keys[key]?.(record);
      if (typeof wanted !== 'string' || shown !== wanted) return false;
    }
    return announces(statusOf(kind, record));
  };
}

/** Whether a change's status is the one `event` announced; any status is, for a type that names none. @internal */
export function announcedBy(event: WebhookEvent, status: string | null): boolean {
  return eventTypeOf(event.type)?.announces?.(status) ?? true;
}

/** Whether a record's status is one a provider event announces: a poll that finds it first counts, so lost webhooks show. @internal */
export function announcedChange(kind: StatusKind, record: RecordOf<StatusKind>): boolean {
  const status = statusOf(kind, record);
  return Object.values(EVENT_TYPES).some(
    (entry) =>
      entry.kind === kind &&
      entry.announces?.(status) === true &&
      (entry.key === undefined || kindEntry(kind).keys[entry.key]?.(record) !== undefined),
  );
}
