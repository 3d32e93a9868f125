import { typeName } from '../internal/type-name.js';

/** A store's `prefix` option: any string (an empty one too), `fallback` when absent. */
export function prefixOption(value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw new TypeError(`prefix must be a string, got ${typeName(value)}`);
  return value;
}
