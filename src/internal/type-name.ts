/** `value`'s type for an error message, never the value itself, so a misplaced secret is not quoted back. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
