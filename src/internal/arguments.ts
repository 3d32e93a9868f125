import { typeName } from './type-name.js';
import { quote } from './quote.js';

/** `value` as a positive, finite number of milliseconds (`fallback` when undefined), else a `TypeError` naming `name`. */
export function positiveMs(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new TypeError(`${name} must be a positive number of milliseconds, got ${quote(value)}`);
  }
  return value;
}

/** A function option: nothing when undefined and not `required`, else a `TypeError` naming `name` unless it is a function. */
export function functionOption(name: string, value: unknown, required = false): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function, got ${typeName(value)}`);
}

/** An event store's `eventId` argument: a non-empty string, else a `TypeError`. */
export function checkEventId(eventId: unknown): asserts eventId is string {
  if (typeof eventId !== 'string' || eventId === '') {
    throw new TypeError(`eventId must be a non-empty string, got ${eventId === '' ? 'an empty string' : typeName(eventId)}`);
  }
}

/** RFC 9110 token characters: what an HTTP header name may hold. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The signature header option, lower-cased (`x-provider-signature` when undefined), else a `TypeError`. */
export function signatureHeaderName(value: unknown): string {
  if (value === undefined) return 'x-provider-signature';
  if (typeof value !== 'string' || !HEADER_NAME.test(value)) {
    throw new TypeError(`signatureHeader must be an HTTP header name such as "x-provider-signature", got ${typeName(value)}`);
  }
  return value.toLowerCase();
}
