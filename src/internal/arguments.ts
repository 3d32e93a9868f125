import { typeName } from './type-name.js';
import { quote } from './quote.js';

// The SDK's argument checks: each returns the value (default applied) or throws a `TypeError` naming
// the argument and what it must be; the value is quoted only where it cannot be a secret.

/** The longest delay a timer can hold (2^31 − 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** An options object with only `known` keys (`undefined` is `{}` if `optional`): an ignored typo would apply a default. */
export function checkOptions(where: string, options: unknown, known: readonly string[], optional = false): Record<string, unknown> {
  if (options === undefined && optional) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${where} options must be an object, got ${typeName(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const near = nearest(key, known);
    throw new TypeError(`${where}: unknown option ${quote(key)}${near === undefined ? '' : ` (did you mean "${near}"?)`}`);
  }
  return options as Record<string, unknown>;
}

/** `true` when `A` and `B` hold the same names, else what each lacks: `true satisfies SameKeys<Listed, keyof Options>`. */
export type SameKeys<A extends PropertyKey, B extends PropertyKey> = [Exclude<A, B> | Exclude<B, A>] extends [never]
  ? true
  : { onlyInList: Exclude<A, B>; onlyInType: Exclude<B, A> };

/** The known name `key` most likely meant: the same but for case, or at most 2 edits away (and fewer than half its length). */
function nearest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = name.toLowerCase() === lower ? 0 : editDistance(lower, name.toLowerCase());
    if (distance <= 2 && distance < name.length / 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance, for short names (option names, statuses): strings over 64 characters are not compared. */
export function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

export function positiveMs(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new TypeError(`${name} must be a positive number of milliseconds, got ${quote(value)}`);
  }
  return value;
}

export function timerMs(name: string, value: unknown, fallback: number): number {
  const ms = positiveMs(name, value, fallback);
  if (ms > MAX_TIMER_MS) {
    throw new TypeError(`${name} must be at most ${MAX_TIMER_MS} milliseconds (the longest a timer can wait), got ${ms}`);
  }
  return ms;
}

export function wholeNumber<Fallback extends number | undefined>(
  name: string,
  value: unknown,
  fallback: Fallback,
  min = 1,
): number | Fallback {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new TypeError(`${name} must be a whole number of at least ${min}, got ${quote(value)}`);
  }
  return value;
}

export function byteCount(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a whole number of bytes of at least 1, got ${quote(value)}`);
  }
  return value;
}

export function booleanOption(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean, got ${typeName(value)}`);
}

/** A non-empty string (an id, an owner), else a `TypeError` that never quotes the value. */
export function nonEmptyString(name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`${name} must be a non-empty string, got ${value === '' ? 'an empty string' : typeName(value)}`);
  }
}

export function oneOf<const Value extends string>(name: string, value: unknown, values: readonly Value[]): asserts value is Value {
  if (!values.includes(value as Value)) {
    throw new TypeError(
      `${name} must be ${values.map((v) => `"${v}"`).join(' or ')}, got ${typeof value === 'string' ? quote(value, 40) : typeName(value)}`,
    );
  }
}

export function functionOption(name: string, value: unknown, required = false): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function, got ${typeName(value)}`);
}

export function checkEventId(eventId: unknown): asserts eventId is string {
  nonEmptyString('eventId', eventId);
}

/** RFC 9110 token characters: what an HTTP header name may hold. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** What an HTTP header value may hold: no CR, LF, NUL or other control character but tab. */
export const HEADER_VALUE = /^[\t\x20-\x7E\x80-\xFF]*$/;

/** The signature header option, lower-cased (`x-provider-signature` when undefined), else a `TypeError`. */
export function signatureHeaderName(value: unknown): string {
  if (value === undefined) return 'x-provider-signature';
  if (typeof value !== 'string' || !HEADER_NAME.test(value)) {
    throw new TypeError(`signatureHeader must be an HTTP header name such as "x-provider-signature", got ${typeName(value)}`);
  }
  return value.toLowerCase();
}
