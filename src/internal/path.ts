import { typeName } from './type-name.js';

/** One percent-encoded path segment, else a `TypeError`; `.` and `..` too, which URL parsers resolve even encoded. */
export function pathSegment(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${typeName(value)}`);
  if (value === '') throw new TypeError(`${name} must not be empty`);
  if (value === '.' || value === '..') throw new TypeError(`${name} cannot be ${JSON.stringify(value)}: it is not a path segment`);
  if (!value.isWellFormed()) throw new TypeError(`${name} contains a lone surrogate and cannot be encoded`);
  return encodeURIComponent(value);
}

/** The slashes a path starts with. `[/]*`, not `\/*`: publint would read `/*` in the CommonJS build as a comment. */
export const LEADING_SLASHES = /^[/]*/;
