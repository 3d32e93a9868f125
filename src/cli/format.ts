import { escapeJsonOutput, escapeText } from './escape.js';

/**
 * `record` as aligned `key: value` lines, nested objects flattened with dots (`settlement.status`).
 * Keys and values come from the service: their control characters are escaped, so a value cannot
 * clear the screen or start a line of its own.
 */
export function formatRecord(record: Record<string, unknown>): string {
  const rows: [string, string][] = [];
  const walk = (value: unknown, prefix: string) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
      for (const [key, inner] of Object.entries(value)) walk(inner, prefix ? `${prefix}.${key}` : key);
    } else {
      rows.push([escapeText(prefix), escapeText(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)))]);
    }
  };
  walk(record, '');
  const width = Math.max(0, ...rows.map(([key]) => key.length));
  return rows.map(([key, value]) => `${`${key}:`.padEnd(width + 2)}${value}`).join('\n') + '\n';
}

/**
 * Pretty JSON with a final newline. `JSON.stringify` escapes C0; DEL, C1, U+2028/2029 and the bidi
 * controls are written as `\uXXXX` too, so the output stays valid JSON with the same strings.
 */
export function formatJson(value: unknown): string {
  return `${escapeJsonOutput(JSON.stringify(value, null, 2))}\n`;
}
