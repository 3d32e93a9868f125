import { typeName } from './type-name.js';

/** The longest part of a string value {@link quote} shows; the rest is cut off (marked with `…`). */
const MAX_QUOTED_CHARS = 120;

/**
 * What `JSON.stringify` leaves as it is but a terminal or a log reader may act on: DEL, the C1
 * controls (U+0080–U+009F, among them the 8-bit CSI), the line and paragraph separators, and the
 * bidirectional controls that can reorder a line as displayed.
 */
const UNSAFE_BEYOND_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Every control character, for {@link escapeControl}. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are escaped
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const unicodeEscape = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A JSON text with what `JSON.stringify` leaves as it is but a log reader may act on (C1
 * controls, line separators, bidirectional controls) escaped too: still valid JSON, one line.
 */
export function safeJson(json: string): string {
  return json.replace(UNSAFE_BEYOND_JSON, unicodeEscape);
}

/**
 * A value from outside (an event's `type`, an id, an option's value) as it may appear in an error
 * or log message: a string is quoted as `JSON.stringify` quotes it, with every control character
 * escaped (CR, LF, ESC… so it cannot forge a log line or drive a terminal) and cut to `maxChars`
 * (120) characters; a number, a boolean, `null` or `undefined` as itself; anything else only by its type
 * (an object may hold a secret).
 *
 * @example
 * quote('otc.trade.settled\n[INFO] forged'); // '"otc.trade.settled\\n[INFO] forged"'
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

/**
 * Free text from outside (a service's error message, a driver's) with every control character
 * written as a `\uXXXX` escape, for a message that shows it unquoted.
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, unicodeEscape);
}
