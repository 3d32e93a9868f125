import { MAX_TIMER_MS, timerMs } from '../internal/arguments.js';
import { typeName } from '../internal/type-name.js';
import type { StatusRecordState, StatusScheduleOptions } from './types.js';

/** The schedule with every default applied. */
export interface Schedule {
  fastIntervalMs: number;
  fastForMs: number;
  maxIntervalMs: number;
  jitter: number;
  maxAgeMs: number;
  nudgeFastForMs: number;
  retryDelayMs: number;
  notFoundForMs: number;
}

/** Checks the `schedule` option and applies the defaults; a wrong field is a `TypeError` naming it. */
export function resolveSchedule(options: StatusScheduleOptions | undefined): Schedule {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new TypeError(`schedule must be an object, got ${typeName(options)}`);
  }
  const given = options ?? {};
  const jitter = given.jitter ?? 0.2;
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter <= 1)) {
    throw new TypeError(`schedule.jitter must be a number from 0 to 1, got ${String(jitter)}`);
  }
  const schedule: Schedule = {
    fastIntervalMs: timerMs('schedule.fastIntervalMs', given.fastIntervalMs, 2_000),
    fastForMs: positive('schedule.fastForMs', given.fastForMs, 600_000),
    maxIntervalMs: timerMs('schedule.maxIntervalMs', given.maxIntervalMs, 300_000),
    jitter,
    maxAgeMs: positive('schedule.maxAgeMs', given.maxAgeMs, 7 * 24 * 60 * 60 * 1000),
    nudgeFastForMs: positive('schedule.nudgeFastForMs', given.nudgeFastForMs, 600_000),
    retryDelayMs: timerMs('schedule.retryDelayMs', given.retryDelayMs, 1_000),
    notFoundForMs: 0,
  };
  // the open-checkout window: a record not found while its checkout could still be open never will be
  schedule.notFoundForMs = positive('schedule.notFoundForMs', given.notFoundForMs, schedule.fastForMs);
  if (schedule.maxIntervalMs < schedule.fastIntervalMs) {
    throw new TypeError(
      `schedule.maxIntervalMs (${schedule.maxIntervalMs}) must be at least schedule.fastIntervalMs (${schedule.fastIntervalMs})`,
    );
  }
  return schedule;
}

function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isSafeInteger(Math.ceil(value))) {
    throw new TypeError(`${name} must be a positive number of milliseconds, got ${typeof value === 'number' ? value : typeName(value)}`);
  }
  return value;
}

/**
 * The wait before the record's next read, jitter included. Fast while the watch is young or a
 * nudge is recent; then the time since the fast period ended (so each wait doubles the time
 * watched), capped at `maxIntervalMs`. The interval is a function of the record's age, not of a
 * counter, so no extra state is stored and every process computes the same schedule.
 */
export function nextDelayMs(schedule: Schedule, record: Pick<StatusRecordState, 'watchedAt' | 'nudgedAt'>, now: number): number {
  const age = Math.max(0, now - record.watchedAt);
  const nudged = record.nudgedAt !== undefined && now - record.nudgedAt < schedule.nudgeFastForMs;
  const base =
    age < schedule.fastForMs || nudged
      ? schedule.fastIntervalMs
      : Math.min(schedule.maxIntervalMs, Math.max(schedule.fastIntervalMs, age - schedule.fastForMs));
  return withJitter(base, schedule.jitter);
}

/** The wait after `failures` failures in a row: `retryDelayMs`, doubling, up to `maxIntervalMs`, with jitter. */
export function retryDelayMs(schedule: Schedule, failures: number): number {
  const base = Math.min(schedule.maxIntervalMs, schedule.retryDelayMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
  return withJitter(base, schedule.jitter);
}

function withJitter(ms: number, jitter: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(1, Math.round(ms * (1 + jitter * (2 * Math.random() - 1)))));
}
