import type { OptionName } from './args.js';
import { quoted } from './escape.js';
import { usage } from './exit-codes.js';

/** The longest delay a timer can hold (2^31 − 1 ms, about 24.8 days). */
const MAX_MS = 2_147_483_647;
/** The default `--timeout` of a command that makes one call (`me`, `token`, a read): the whole call, token exchange and retries included. */
export const CALL_TIMEOUT_MS = 30_000;
/** The default `--timeout` of `--wait-until` and of `webhook send`. */
export const WAIT_TIMEOUT_MS = 60_000;

const UNIT_MS = { ms: 1, s: 1000, m: 60_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?|\.\d+)(ms|s|m)?$/;

/**
 * A duration option in milliseconds: `500ms`, `2s`, `1.5m`, or a bare number of seconds (as scripts
 * have always passed it). Zero, negatives and more than a timer holds are usage errors.
 */
export function durationOption(command: string, name: OptionName, value: string | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  const match = DURATION.exec(value.trim());
  const ms = match === null ? Number.NaN : Math.round(Number(match[1]) * UNIT_MS[(match[2] ?? 's') as keyof typeof UNIT_MS]);
  if (!(ms >= 1 && ms <= MAX_MS)) {
    throw usage(`--${name} must be a positive duration such as 500ms, 30s, 2m or 30 (seconds), got ${quoted(value)}`, command);
  }
  return ms;
}

/** `ms` for a message, in seconds: `1.5 s`, `0.25 s`. */
export function formatDuration(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
