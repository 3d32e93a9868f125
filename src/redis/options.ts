import { typeName } from '../internal/type-name.js';

export function prefixOption(value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw new TypeError(`prefix must be a string, got ${typeName(value)}`);
  return value;
}
