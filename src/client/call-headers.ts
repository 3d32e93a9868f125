import { HEADER_NAME, HEADER_VALUE, wholeNumber } from '../internal/arguments.js';
import { typeName } from '../internal/type-name.js';
const VISIBLE_ASCII = /^[\x21-\x7E]+$/;
/** Headers the client or fetch sets: fetch would reject the connection-level ones only after the exchange. */
const RESERVED = new Set([
  'authorization',
  'x-partner-id',
  'x-partner-secret',
  'idempotency-key',
  'content-length',
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

/** A call's `headers` option with lower-case names, or a `TypeError` naming the header (never its value). */
export function callHeaders(headers: unknown): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw new TypeError(`headers must be an object of header names to string values, got ${typeName(headers)}`);
  }
  const entries = headers instanceof Headers ? [...headers] : Object.entries(headers);
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) throw new TypeError(`headers: ${JSON.stringify(name.slice(0, 40))} is not a valid header name`);
    const lower = name.toLowerCase();
    if (RESERVED.has(lower)) {
      throw new TypeError(`headers: ${lower} is set by the client${lower === 'idempotency-key' ? ' (use the idempotencyKey option)' : ''}`);
    }
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      throw new TypeError(`headers: the value of ${lower} must be a string without control characters`);
    }
    out[lower] = value;
  }
  return out;
}

export function idempotencyKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > 255 || !VISIBLE_ASCII.test(value)) {
    throw new TypeError('idempotencyKey must be a string of 1 to 255 visible ASCII characters (a UUID, for example)');
  }
  return value;
}

export function retriesOption(value: unknown): number | undefined {
  return wholeNumber('maxRetries', value, undefined, 0);
}
