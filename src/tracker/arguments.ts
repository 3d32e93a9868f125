import { typeName } from '../internal/type-name.js';
import type { StatusKind } from './types.js';

/** A tracker's or store's `kind` argument: `'order'` or `'withdrawal'`, else a `TypeError`. */
export function checkKind(kind: unknown): asserts kind is StatusKind {
  if (kind !== 'order' && kind !== 'withdrawal') {
    throw new TypeError(`kind must be "order" or "withdrawal", got ${typeName(kind)}`);
  }
}

/** A record's `externalId` argument: a non-empty string, else a `TypeError`. */
export function checkExternalId(externalId: unknown): asserts externalId is string {
  if (typeof externalId !== 'string' || externalId === '') {
    throw new TypeError(`externalId must be a non-empty string, got ${externalId === '' ? 'an empty string' : typeName(externalId)}`);
  }
}

/** `value` as a whole number of at least `min` (`fallback` when undefined), else a `TypeError` naming `name`. */
export function wholeNumber(name: string, value: unknown, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new TypeError(`${name} must be a whole number of at least ${min}, got ${typeName(value)}`);
  }
  return value;
}

/** A lease owner (the tracker's `owner`, `reclaim`'s argument): a non-empty string, else a `TypeError`. */
export function checkOwner(owner: unknown): asserts owner is string {
  if (typeof owner !== 'string' || owner === '') {
    throw new TypeError(`owner must be a non-empty string, got ${owner === '' ? 'an empty string' : typeName(owner)}`);
  }
}
