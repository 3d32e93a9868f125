import { typeName } from '../internal/type-name.js';
import type { WebhookEvent } from '../webhook-event.js';

/** The most a tracked event (`StatusChange.event`) takes in a store, in bytes of JSON: its top-level scalars, cut, while they fit. */
export const MAX_TRACKED_EVENT_BYTES = 2_048;

export const MAX_TRACKED_EVENT_FIELD_BYTES = 256;

const MAX_FIELD_NAME_CHARS = 64;

const encoder = new TextEncoder();

function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).length;
}

function cut(value: string, maxBytes: number): string {
  // a character takes at least one byte of JSON
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

function scalar(value: unknown): string | number | boolean | null | undefined {
  if (typeof value === 'string') return cut(value, MAX_TRACKED_EVENT_FIELD_BYTES);
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean' || value === null) return value;
  return undefined;
}

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
