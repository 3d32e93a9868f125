import { typeName } from './type-name.js';

/** The longest part of a string value {@link quote} shows; the rest is cut off (marked with `…`). */
const MAX_QUOTED_CHARS = 120;

/** What `JSON.stringify` leaves as it is but a terminal or log reader may act on: DEL, C1, U+2028/2029, bidi controls. */
const UNSAFE_BEYOND_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are escaped
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const unicodeEscape = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** JSON text with those characters escaped too: still valid JSON, on one line. */
export function safeJson(json: string): string {
  return json.replace(UNSAFE_BEYOND_JSON, unicodeEscape);
}

/**
 * A value from outside for a message: a string JSON-quoted, control characters escaped (no forged log
 * line), cut to `maxChars`; a primitive as itself; anything else by its type only (it may hold a secret).
 */
export function quote(value: unknown, maxChars = MAX_QUOTED_CHARS): string {
  if (typeof value === 'string') {
    const cut = value.length > maxChars;
    // JSON.stringify escapes U+0000–U+001F, `"` and `\`, and lone surrogates (well-formed JSON.stringify)
    const quoted = JSON.stringify(cut ? value.slice(0, maxChars) : value).replace(UNSAFE_BEYOND_JSON, unicodeEscape);
    return cut ? `${quoted}…` : quoted;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === undefined || value === null) {
    return String(value);
  }
  return typeName(value);
}

/** Outside text (a service's or a driver's message) with every control character as `\uXXXX`, to show unquoted. */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, unicodeEscape);
}
