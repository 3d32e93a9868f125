/**
 * Control characters in service- or user-supplied text, made visible instead of obeyed: a terminal
 * runs ESC/CSI/OSC sequences (clear the screen, retitle the window, forge lines) and starts a new
 * line at CR or LF, so a string from the service could rewrite what the user sees.
 *
 * Escaped: C0 (U+0000–U+001F), DEL (U+007F), C1 (U+0080–U+009F), the line and paragraph
 * separators (U+2028, U+2029) and the bidirectional controls (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069), which reorder what a terminal shows ("Trojan Source").
 */
/* eslint-disable no-control-regex -- matching control characters is the point: they are escaped */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */
/** What stays outside JSON.stringify's escapes: DEL, C1 and the rest above (C0 it escapes itself). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex = (char: string, width: number) => char.charCodeAt(0).toString(16).padStart(width, '0');

/** `\x1b` for C0 and DEL (the form shells and `od -c` readers know), `\u009b` for the rest. */
function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x80 ? `\\x${hex(char, 2)}` : `\\u${hex(char, 4)}`;
}

/** `\uXXXX`: the same character once a JSON parser reads it, so JSON output keeps its meaning. */
function jsonEscape(char: string): string {
  return `\\u${hex(char, 4)}`;
}

/**
 * One value (an order field, an id, an error message from the service) for a human-readable line:
 * every control character escaped, newlines included, so the value stays on its line.
 */
export function escapeText(value: string): string {
  return value.replace(UNSAFE, visible);
}

/**
 * A whole block of the CLI's own human-readable output: the CLI's newlines stay, every other
 * control character is escaped. The last line of defence behind {@link escapeText}.
 */
export function escapeOutput(text: string): string {
  return text.replace(UNSAFE_BUT_NEWLINE, visible);
}

/**
 * JSON text from `JSON.stringify`, with DEL, C1, U+2028/2029 and the bidi controls written as
 * `\uXXXX` escapes: still valid JSON that parses to the very same strings, and inert on a terminal.
 */
export function escapeJsonOutput(json: string): string {
  return json.replace(UNSAFE_IN_JSON, jsonEscape);
}

/** `value` in double quotes, escaped: for naming a user's or the service's value in a message. */
export function quoted(value: string): string {
  return `"${escapeText(value)}"`;
}
