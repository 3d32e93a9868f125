import { checkOptions, wholeNumber } from '../../internal/arguments.js';
import { typeName } from '../../internal/type-name.js';

/** The client option `rateLimit`: how many requests may be in flight at once, and how fast they may start. */
export interface RateLimitOptions {
  /**
   * The most requests of this client in flight at once, the token exchange included; the others
   * queue in order. A request waits at most half of its attempt, then fails unsent with a
   * `TimeoutError`, so a service that never answers receives about `concurrency × elapsed / timeoutMs`
   * requests whatever the number of callers. A whole number from 1.
   * @default 64
   */
  concurrency?: number | undefined;
  /**
   * The most requests of this client reaching the service in any one-second window (sliding),
   * retries and the token exchange included. Above 1 it is rounded down; below 1 requests are
   * spaced `1 / requestsPerSecond` seconds apart. At most 10,000.
   * @default no pace (only the concurrency bound, and the adaptive rate after a 429)
   */
  requestsPerSecond?: number | undefined;
  /**
   * The most requests of this client waiting for their turn at once; past it a call fails at once,
   * unsent, with a `QueueFullError`, so a slow service cannot grow the queue without bound. A whole
   * number from 1.
   * @default 10000
   */
  maxQueue?: number | undefined;
}

/**
 * The client option `retryBudget` as an object: the retry quota of AWS SDKs' standard retry mode.
 * Every retry takes `retryCost` tokens (`timeoutCost` after a timeout or a network error) from a
 * bucket of `capacity`; a success puts back 1 (or the retry's cost, when it followed a retry).
 * With the bucket short of a retry's cost, calls fail on their first error.
 */
export interface RetryBudgetOptions {
  /**
   * Tokens in the bucket, full at start: `capacity / retryCost` retries in a row with no success between.
   * @default 500
   */
  capacity?: number | undefined;
  /**
   * Tokens a retry after a 408, 429 or 5xx takes.
   * @default 5
   */
  retryCost?: number | undefined;
  /**
   * Tokens a retry after a timeout or a network error takes (such a failure ties up a connection longer).
   * @default 10
   */
  timeoutCost?: number | undefined;
}

export interface LoadSettings {
  concurrency: number;
  maxQueue: number;
  requestsPerSecond: number | undefined;
  budget: { capacity: number; retryCost: number; timeoutCost: number } | undefined;
}

export const DEFAULT_MAX_QUEUE = 10_000;

/** `requestsPerSecond` keeps a ring of this many send times. */
export const MAX_REQUESTS_PER_SECOND = 10_000;

/** `rateLimit` and `retryBudget` checked, with their defaults; a `TypeError` naming the bad option. */
export function loadSettings(rateLimit: unknown, retryBudget: unknown): LoadSettings {
  if (rateLimit !== undefined && (rateLimit === null || typeof rateLimit !== 'object')) {
    throw new TypeError(
      `rateLimit must be an object such as { concurrency: 16, requestsPerSecond: 50, maxQueue: 1000 }, got ${typeName(rateLimit)}`,
    );
  }
  const limits = checkOptions('rateLimit', rateLimit, ['concurrency', 'requestsPerSecond', 'maxQueue'], true) as RateLimitOptions;
  const concurrency = wholeNumber('rateLimit.concurrency', limits.concurrency, 64, 1);
  const maxQueue = wholeNumber('rateLimit.maxQueue', limits.maxQueue, DEFAULT_MAX_QUEUE, 1);
  const rps = limits.requestsPerSecond;
  if (rps !== undefined && (typeof rps !== 'number' || !(rps > 0) || !(rps <= MAX_REQUESTS_PER_SECOND))) {
    throw new TypeError(`rateLimit.requestsPerSecond must be a number above 0 and at most ${MAX_REQUESTS_PER_SECOND}, got ${String(rps)}`);
  }
  return { concurrency, maxQueue, requestsPerSecond: rps, budget: budgetSettings(retryBudget) };
}

function budgetSettings(value: unknown): LoadSettings['budget'] {
  if (value === false) return undefined;
  if (value !== undefined && value !== true && (value === null || typeof value !== 'object')) {
    throw new TypeError(`retryBudget must be true, false or { capacity?, retryCost?, timeoutCost? }, got ${typeName(value)}`);
  }
  const options = (
    typeof value === 'object' ? checkOptions('retryBudget', value, ['capacity', 'retryCost', 'timeoutCost']) : {}
  ) as RetryBudgetOptions;
  const capacity = wholeNumber('retryBudget.capacity', options.capacity, 500, 1);
  const retryCost = wholeNumber('retryBudget.retryCost', options.retryCost, 5, 1);
  const timeoutCost = wholeNumber('retryBudget.timeoutCost', options.timeoutCost, 10, 1);
  // a cost above the capacity means that kind of failure is never retried
  return { capacity, retryCost, timeoutCost };
}
