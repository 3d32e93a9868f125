/**
 * Control characters in service- or user-supplied text, made visible instead of obeyed, so a string
 * cannot rewrite what the terminal shows: C0, DEL, C1, U+2028/2029 and the bidi controls ("Trojan Source").
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

/** One value for a human-readable line: every control character escaped, newlines included. */
export function escapeText(value: string): string {
  return value.replace(UNSAFE, visible);
}

/** The CLI's own output: its newlines stay, every other control character is escaped (behind {@link escapeText}). */
export function escapeOutput(text: string): string {
  return text.replace(UNSAFE_BUT_NEWLINE, visible);
}

/** `JSON.stringify` output with the rest of {@link escapeText}'s characters as `\uXXXX`: the same JSON, inert on a terminal. */
export function escapeJsonOutput(json: string): string {
  return json.replace(UNSAFE_IN_JSON, jsonEscape);
}

/** `value` in double quotes, escaped: for naming a user's or the service's value in a message. */
export function quoted(value: string): string {
  return `"${escapeText(value)}"`;
}
