import { typeName } from './type-name.js';

/**
 * `value` as one percent-encoded path segment (`a/b` → `a%2Fb`), or a `TypeError` for what cannot
 * be one: a non-string, an empty string, `.`/`..` (URL parsers resolve them, even encoded, so they
 * would address another path), or a string with a lone surrogate.
 */
export function pathSegment(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${typeName(value)}`);
  if (value === '') throw new TypeError(`${name} must not be empty`);
  if (value === '.' || value === '..') throw new TypeError(`${name} cannot be ${JSON.stringify(value)}: it is not a path segment`);
  if (!value.isWellFormed()) throw new TypeError(`${name} contains a lone surrogate and cannot be encoded`);
  return encodeURIComponent(value);
}

/**
 * The slashes a path starts with (none or more). `[/]*`, not `\/*`: publint tells CommonJS from ESM
 * by regular expressions that read a `/*` in the CommonJS build as the start of a comment, which
 * once hid the build's `module.exports`.
 */
export const LEADING_SLASHES = /^[/]*/;
