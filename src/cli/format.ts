import { escapeJsonOutput, escapeText } from './escape.js';

/** `record` as aligned `key: value` lines, nested keys joined with dots, keys and values escaped. */
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

/** Pretty JSON with a final newline, escaped by {@link escapeJsonOutput}. */
export function formatJson(value: unknown): string {
  return `${escapeJsonOutput(JSON.stringify(value, null, 2))}\n`;
}
