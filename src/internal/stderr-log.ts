import { env } from './env.js';
import { escapeControl, quote, safeJson } from './quote.js';
import type { LogLevel } from './log.js';

// The default logging without a `logger` option: failures to stderr, one line each (every entry with
// CHECKOUT_LOG=debug), every outside value quoted; one JSON object a line with CHECKOUT_LOG_FORMAT=json.

/** What failed, as a log line shows it: the error's name, message and HTTP status, and the errors it holds. */
export interface LineError {
  name: string;
  message: string;
  status?: number | undefined;
  errors?: readonly LineError[] | undefined;
}

/** Whether `CHECKOUT_LOG=debug` (any case) asks for every entry on stderr, not only failures. */
export function debugLogging(): boolean {
  return env('CHECKOUT_LOG')?.trim().toLowerCase() === 'debug';
}

/** How default stderr lines are written: `key=value` text, or one JSON object per line. */
export type LineFormat = 'text' | 'json';

/** `CHECKOUT_LOG_FORMAT=json` (any case) asks for JSON lines; anything else (or nothing) is text. */
export function lineFormat(): LineFormat {
  return env('CHECKOUT_LOG_FORMAT')?.trim().toLowerCase() === 'json' ? 'json' : 'text';
}

/** The longest error message a JSON line shows, as the text line's quote cuts it. */
const MAX_MESSAGE_CHARS = 500;

/** One entry as a JSON line: `{ time, level, logger, ...entry, ...extra }`, its `error` without a stack, the message cut. */
export function jsonLine(level: LogLevel, entry: object, extra?: Readonly<Record<string, unknown>>): string {
  const line: Record<string, unknown> = { time: new Date().toISOString(), level, logger: 'checkout-partner-sdk' };
  for (const [key, value] of Object.entries(entry)) {
    if (value === undefined) continue;
    if (key === 'error') line[key] = jsonError(value as LineError);
    else if (key === 'ms' && typeof value === 'number') line[key] = Math.round(value);
    else line[key] = value;
  }
  if (extra !== undefined) Object.assign(line, extra);
  try {
    return safeJson(JSON.stringify(line));
  } catch {
    // a field JSON cannot hold (a bigint): the entry's name and level still get out
    return safeJson(JSON.stringify({ time: line['time'], level, logger: line['logger'], event: (entry as { event?: unknown }).event }));
  }
}

function jsonError(error: LineError, depth = 0): LineError {
  const message =
    typeof error.message === 'string' && error.message.length > MAX_MESSAGE_CHARS
      ? `${error.message.slice(0, MAX_MESSAGE_CHARS)}…`
      : error.message;
  const plain: LineError = { name: error.name, message };
  if (error.status !== undefined) plain.status = error.status;
  if (error.errors !== undefined && depth < 2) plain.errors = error.errors.slice(0, 10).map((inner) => jsonError(inner, depth + 1));
  return plain;
}

/** Writes one line to stderr; a closed or broken stderr never breaks the caller. */
export function stderrLine(line: string): void {
  try {
    console.error(line);
  } catch {
    // a closed stderr must not break a delivery or a read
  }
}

/** `Name "message" status=…` (and the inner errors), with the name escaped and the message quoted and cut. */
export function describeLineError(error: LineError): string {
  const status = error.status === undefined ? '' : ` status=${error.status}`;
  const inner = error.errors === undefined ? '' : ` (${error.errors.map(describeLineError).join('; ')})`;
  return `${escapeControl(error.name)} ${quote(error.message, 500)}${status}${inner}`;
}

/** The most distinct lines {@link RepeatLimiter} remembers; beyond it, the oldest are forgotten (and may repeat early). */
const MAX_REMEMBERED = 1_000;

/** Lets a line through once per `windowMs` per key, so a repeating failure writes one line a window, with the count held back. */
export class RepeatLimiter {
  readonly #windowMs: number;
  readonly #now: () => number;
  /** Per key: when its window ends and how many lines were held back in it. Insertion order = oldest first. */
  readonly #seen = new Map<string, { until: number; held: number }>();

  constructor(windowMs: number, now: () => number = Date.now) {
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** `undefined` when the line is held back; else how many of its kind were held back before it (0 the first time). */
  pass(key: string): number | undefined {
    const now = this.#now();
    const seen = this.#seen.get(key);
    if (seen !== undefined && seen.until > now) {
      seen.held += 1;
      return undefined;
    }
    const held = seen?.held ?? 0;
    this.#seen.delete(key);
    this.#seen.set(key, { until: now + this.#windowMs, held: 0 });
    // bounded: the key let through longest ago goes first
    if (this.#seen.size > MAX_REMEMBERED) this.#seen.delete(this.#seen.keys().next().value!);
    return held;
  }
}
