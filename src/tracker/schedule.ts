import { checkOptions, MAX_TIMER_MS, timerMs, type SameKeys } from '../internal/arguments.js';
import { typeName } from '../internal/type-name.js';
import type { StatusRecordState, StatusScheduleOptions } from './types.js';

export interface Schedule {
  fastIntervalMs: number;
  fastForMs: number;
  maxIntervalMs: number;
  jitter: number;
  maxAgeMs: number;
  nudgeFastForMs: number;
  retryDelayMs: number;
  notFoundForMs: number;
  safetyIntervalMs: number;
  webhookSilenceMs: number;
  webhooksFromStart: boolean;
}

/** What a read tells the schedule, beyond the record's age and nudge. */
export interface Pace {
  /** The change the record awaits is one an event announces, and events flow: the safety pace. */
  announced: boolean;
  /** The nudge needs no more fast reads: the read showed what its event announced (or its change was handed over). */
  nudgeAnswered: boolean;
}

const SCHEDULE_OPTIONS = [
  'fastIntervalMs',
  'fastForMs',
  'maxIntervalMs',
  'jitter',
  'maxAgeMs',
  'nudgeFastForMs',
  'retryDelayMs',
  'notFoundForMs',
  'safetyIntervalMs',
  'webhookSilenceMs',
  'webhooksFromStart',
] as const;
true satisfies SameKeys<(typeof SCHEDULE_OPTIONS)[number], keyof StatusScheduleOptions>;

/** The pace of a record nothing is known of (a 404, a failed read). */
export const UNANNOUNCED: Pace = { announced: false, nudgeAnswered: false };

export function resolveSchedule(options: StatusScheduleOptions | undefined): Schedule {
  const given: StatusScheduleOptions = checkOptions('schedule', options, SCHEDULE_OPTIONS, true);
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
    safetyIntervalMs: timerMs('schedule.safetyIntervalMs', given.safetyIntervalMs, 40_000),
    webhookSilenceMs: positive('schedule.webhookSilenceMs', given.webhookSilenceMs, 600_000),
    webhooksFromStart: given.webhooksFromStart ?? false,
  };
  if (typeof schedule.webhooksFromStart !== 'boolean') {
    throw new TypeError(`schedule.webhooksFromStart must be a boolean, got ${typeName(schedule.webhooksFromStart)}`);
  }
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

/** A function of the record's age and last read, not of a stored counter, so every process computes the same schedule. */
export function nextDelayMs(
  schedule: Schedule,
  record: Pick<StatusRecordState, 'watchedAt' | 'nudgedAt'>,
  now: number,
  pace: Pace = UNANNOUNCED,
): number {
  const age = Math.max(0, now - record.watchedAt);
  const nudged = !pace.nudgeAnswered && record.nudgedAt !== undefined && now - record.nudgedAt < schedule.nudgeFastForMs;
  const base = nudged
    ? schedule.fastIntervalMs
    : pace.announced
      ? schedule.safetyIntervalMs
      : age < schedule.fastForMs
        ? schedule.fastIntervalMs
        : Math.min(schedule.maxIntervalMs, Math.max(schedule.fastIntervalMs, age - schedule.fastForMs));
  return withJitter(base, schedule.jitter);
}

/** The wait after the `missed`-th read in a row the service failed: fast, doubling, never past `normalMs` (its own schedule). */
export function soonDelayMs(schedule: Schedule, missed: number, normalMs: number): number {
  const soon = schedule.fastIntervalMs * 2 ** Math.min(30, Math.max(0, missed - 1));
  return Math.min(normalMs, withJitter(soon, schedule.jitter));
}

export function retryDelayMs(schedule: Schedule, failures: number): number {
  const base = Math.min(schedule.maxIntervalMs, schedule.retryDelayMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
  return withJitter(base, schedule.jitter);
}

function withJitter(ms: number, jitter: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(1, Math.round(ms * (1 + jitter * (2 * Math.random() - 1)))));
}
