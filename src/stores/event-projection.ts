import { typeName } from '../internal/type-name.js';
import type { WebhookEvent } from '../webhook-event.js';

/**
 * The most a tracked event may take in a status store, in bytes of JSON (2 KiB). A nudge keeps only
 * a projection of the provider's event within it: `eventId`, `type`, and the event's other
 * top-level scalar fields (strings, finite numbers, booleans, `null`), each string cut to
 * 256 bytes, in the event's own field order while they fit. Nested
 * objects and arrays are left out. So a watched record costs a bounded amount whatever the provider
 * sends, and `StatusChange.event` is that projection, never the whole payload.
 */
export const MAX_TRACKED_EVENT_BYTES = 2_048;

/** The most one string field of a tracked event keeps, in bytes of JSON (`eventId` and `type` included). */
export const MAX_TRACKED_EVENT_FIELD_BYTES = 256;

/** A field name longer than this is left out of the projection (no provider field is named so). */
const MAX_FIELD_NAME_CHARS = 64;

const encoder = new TextEncoder();

function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).length;
}

/** `value` cut so that its JSON takes at most `maxBytes` (never splitting a surrogate pair). */
function cut(value: string, maxBytes: number): string {
  // a character takes at least one byte of JSON, so nothing past maxBytes characters can fit
  let text = value.length > maxBytes ? value.slice(0, maxBytes) : value;
  if (jsonBytes(text) <= maxBytes) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (jsonBytes(text.slice(0, middle)) <= maxBytes) low = middle;
    else high = middle - 1;
  }
  text = text.slice(0, low);
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

/** A scalar field as kept (strings cut), or `undefined` when the field is not kept. */
function scalar(value: unknown): string | number | boolean | null | undefined {
  if (typeof value === 'string') return cut(value, MAX_TRACKED_EVENT_FIELD_BYTES);
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean' || value === null) return value;
  return undefined;
}

/**
 * The bounded projection of a provider event that the tracker hands its store (see
 * {@link MAX_TRACKED_EVENT_BYTES}); its JSON never exceeds that many bytes.
 */
export function projectEvent(event: WebhookEvent): WebhookEvent {
  if (event === null || typeof event !== 'object' || typeof event.eventId !== 'string' || typeof event.type !== 'string') {
    throw new TypeError(`event must be a webhook event (an object with a string eventId and type), got ${typeName(event)}`);
  }
  const projection: Record<string, string | number | boolean | null> = {
    eventId: cut(event.eventId, MAX_TRACKED_EVENT_FIELD_BYTES),
    type: cut(event.type, MAX_TRACKED_EVENT_FIELD_BYTES),
  };
  let bytes = jsonBytes(projection);
  for (const [field, value] of Object.entries(event)) {
    if (field === 'eventId' || field === 'type' || field.length > MAX_FIELD_NAME_CHARS) continue;
    const kept = scalar(value);
    if (kept === undefined) continue;
    // `,"field":value` in the object's JSON
    const added = jsonBytes(field) + 2 + jsonBytes(kept);
    if (bytes + added > MAX_TRACKED_EVENT_BYTES) continue;
    projection[field] = kept;
    bytes += added;
  }
  return projection as unknown as WebhookEvent;
}
