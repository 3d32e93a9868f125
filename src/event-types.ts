import { kindEntry, STATUS_KINDS, statusOf, type RecordOf, type StatusKind } from './kinds.js';
import type { KnownEventTypes, WebhookEvent } from './webhook-event.js';

// The one table of provider event types: the kind of record each is about, the fields parseEvent
// checks, the status it announces and the value that ties it to its record. The webhook handler's
// parsing, its confirmation and the tracker's intake all read it.

/** How `parseEvent` checks a field an event type declares: absent, `null`, or a string / an array of strings. @internal */
export type FieldCheck = 'string' | 'strings';

/** What the SDK knows of one event type (or of every type under a `prefix.*`). @internal */
export interface EventTypeEntry {
  /** The kind of record the event is about: the one read to confirm it, and nudged in the tracker. */
  readonly kind: StatusKind;
  /** The fields the type declares, each refused by `parseEvent` when present with another type. */
  readonly fields?: Readonly<Record<string, FieldCheck>>;
  /** Whether a status is the one the event announces; absent where the spec names none (never confirmed). */
  readonly announces?: (status: string | null) => boolean;
  /**
   * The event field that carries a value the record's read reveals (a key of its kind's `keys`):
   * the record read must show the same value to confirm the event, and without a resolver the
   * tracker finds the record by it.
   */
  readonly key?: string;
  /**
   * Where the event carries its record's externalId, as a path into the payload (`['data',
   * 'externalId']`): without a resolver of the partner's for the kind, the handler reads the
   * record by the string found there; `parseEvent` refuses another type there (or a non-object on the way).
   */
  readonly idPath?: readonly [string, ...string[]];
}

const isCancellation = (status: string | null) => status !== null && /^cancel/i.test(status);

/** The event types. Every type the spec names (`KnownEventTypes`) has its entry. @internal */
export const EVENT_TYPES: { readonly [T in keyof KnownEventTypes]: EventTypeEntry } & Readonly<Record<string, EventTypeEntry>> = {
  'otc.trade.settled': { kind: 'order', key: 'tradeId', fields: { tradeId: 'string' }, announces: (status) => status === 'Settled' },
  // the spec names no cancelled value: any status that begins with "cancel", any case
  'otc.trade.cancelled': { kind: 'order', key: 'tradeId', fields: { tradeId: 'string' }, announces: isCancellation },
  'otc.trade.*': { kind: 'order', key: 'tradeId' },
  'pix.deposit.*': { kind: 'order', fields: { endUserId: 'string', tags: 'strings' } },
  'pix.withdrawal.settled': { kind: 'withdrawal', announces: (status) => status === 'Completed' },
  'pix.withdrawal.*': { kind: 'withdrawal' },
};

/** The entry for an event type: its own, else the `prefix.*` entry it falls under; `undefined` for a type the SDK does not know. @internal */
export function eventTypeOf(type: string): EventTypeEntry | undefined {
  if (Object.hasOwn(EVENT_TYPES, type)) return EVENT_TYPES[type];
  for (const [pattern, entry] of Object.entries(EVENT_TYPES)) {
    if (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))) return entry;
  }
  return undefined;
}

/** The event types of a kind, as patterns: a type a `prefix.*` of the same kind covers is left out (`otc.trade.*, pix.deposit.*`). @internal */
export function eventPatterns(kind: StatusKind): string[] {
  const own = Object.entries(EVENT_TYPES)
    .filter(([, entry]) => entry.kind === kind)
    .map(([pattern]) => pattern);
  const wildcards = own.filter((pattern) => pattern.endsWith('.*'));
  return own.filter((pattern) => pattern.endsWith('.*') || !wildcards.some((w) => pattern.startsWith(w.slice(0, -1))));
}

/** The kinds with an event type that does not carry its record's externalId (no `idPath`): only a resolver, or a tracker's lookup, finds its record. @internal */
export const KINDS_RESOLVED = STATUS_KINDS.filter((kind) =>
  Object.values(EVENT_TYPES).some((entry) => entry.kind === kind && entry.idPath === undefined),
);

/** What `parseEvent` checks on an event of `type`: each declared field, and its `idPath` (a string), by their path in the payload. @internal */
export function fieldChecks(type: string): [path: readonly [string, ...string[]], check: FieldCheck][] {
  const entry = eventTypeOf(type);
  if (entry === undefined) return [];
  const checks = Object.entries(entry.fields ?? {}).map(([field, check]): [[string], FieldCheck] => [[field], check]);
  return entry.idPath === undefined ? checks : [...checks, [entry.idPath, 'string']];
}

/**
 * The value at `path` in a payload: `undefined` when a step is absent or `null`, `blocked` naming the
 * step that is there but not an object (so no value can be read past it). @internal
 */
export function valueAt(payload: unknown, path: readonly string[]): { value: unknown; blocked?: string | undefined } {
  let value = payload;
  for (const [index, step] of path.entries()) {
    if (value === undefined || value === null) return { value: undefined };
    if (typeof value !== 'object' || Array.isArray(value)) return { value: undefined, blocked: path.slice(0, index).join('.') };
    value = Object.hasOwn(value, step) ? (value as Record<string, unknown>)[step] : undefined;
  }
  return { value };
}

/** The record's externalId the event carries at its type's `idPath`, when it is a non-empty string. @internal */
export function eventRecordId(event: WebhookEvent): string | undefined {
  const path = eventTypeOf(event.type)?.idPath;
  if (path === undefined) return undefined;
  const { value } = valueAt(event, path);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The value of the event's `key` field, when the event is of a type with a key and carries it as a non-empty string. @internal */
export function eventKey(event: WebhookEvent): { kind: StatusKind; key: string; value: string } | undefined {
  const entry = eventTypeOf(event.type);
  if (entry?.key === undefined) return undefined;
  const value = event[entry.key];
  return typeof value === 'string' && value !== '' ? { kind: entry.kind, key: entry.key, value } : undefined;
}

/**
 * Whether a record read confirms the event: it shows the status the event announces and, for a type
 * with a key, the event's value (an `otc.trade.settled` needs the order `Settled` with its
 * `settlement.tradeId` equal to the event's `tradeId`; an event without a string tradeId confirms
 * nothing). `undefined` for a type whose target state the spec does not name: nothing can confirm it. @internal
 */
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

/**
 * Whether a change's status is the one `event` announced (`otc.trade.settled`: `Settled`); any
 * status answers a type whose target state the spec does not name. @internal
 */
export function announcedBy(event: WebhookEvent, status: string | null): boolean {
  return eventTypeOf(event.type)?.announces?.(status) ?? true;
}

/**
 * Whether a record's status is one a provider event announces, by the table (an order `Settled` or
 * cancelled with its trade, as `otc.trade.*` carry its `tradeId`, for example). A poll
 * that finds such a change first counts it (lost or late webhooks show). @internal
 */
export function announcedChange(kind: StatusKind, record: RecordOf<StatusKind>): boolean {
  const status = statusOf(kind, record);
  return Object.values(EVENT_TYPES).some(
    (entry) =>
      entry.kind === kind &&
      entry.announces?.(status) === true &&
      (entry.key === undefined || kindEntry(kind).keys[entry.key]?.(record) !== undefined),
  );
}
