import { describe } from './path.js';

/** `value` as a positive, finite number of milliseconds (`fallback` when undefined), else a `TypeError` naming `name`. */
export function positiveMs(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new TypeError(`${name} must be a positive number of milliseconds, got ${String(value)}`);
  }
  return value;
}

/** An event store's `eventId` argument: a non-empty string, else a `TypeError`. */
export function checkEventId(eventId: unknown): asserts eventId is string {
  if (typeof eventId !== 'string' || eventId === '') {
    throw new TypeError(`eventId must be a non-empty string, got ${eventId === '' ? 'an empty string' : describe(eventId)}`);
  }
}
