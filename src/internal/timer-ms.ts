import { positiveMs } from './arguments.js';

/** The longest delay a timer can hold (2^31 − 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** `value` as a positive number of milliseconds a timer can hold (`fallback` when undefined), else a `TypeError` naming `name`. */
export function timerMs(name: string, value: unknown, fallback: number): number {
  const ms = positiveMs(name, value, fallback);
  if (ms > MAX_TIMER_MS) {
    throw new TypeError(`${name} must be at most ${MAX_TIMER_MS} milliseconds (the longest a timer can wait), got ${ms}`);
  }
  return ms;
}
