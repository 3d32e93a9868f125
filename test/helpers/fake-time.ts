// For tests on fake timers whose code also waits on real work (Web Crypto on the thread pool, the
// telemetry's first-use import of @opentelemetry/api, msw's in-process interception): wait for that work itself,
// however long a loaded machine takes, and never let the fake clock run ahead of it.

import type { LogEntry } from 'checkout-partner-sdk';
import { vi } from 'vitest';

// taken when this module loads, before any test fakes them
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realSetImmediate = globalThis.setImmediate;

/** How long a broken test waits before it fails with a message instead of hanging: never a budget. */
const STUCK_MS = 30_000;

/**
 * Awaits `work`; rejects after 30 s of real time with `stuck`: work that waits on a fake timer
 * nobody moves. A message for a broken test, not a time budget: settling work never gets near it.
 */
export async function settled<T>(work: Promise<T>, stuck: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = realSetTimeout(() => reject(new Error(`${stuck} (still waiting after 30 s of real time)`)), STUCK_MS);
  });
  try {
    return await Promise.race([work, guard]);
  } finally {
    realClearTimeout(timer);
  }
}

/** One real macrotask, whatever the fake timers replace. */
export const realTurn = (): Promise<void> => new Promise((resolve) => realSetImmediate(resolve));

/**
 * Lets real work run (one real macrotask at a time, the fake clock standing still) until `condition`
 * holds, e.g. until the code under test reaches the fake timer the test then moves past.
 */
export async function reached(condition: () => boolean, what: string): Promise<void> {
  let done = false;
  const polling = (async () => {
    while (!done && !condition()) await realTurn();
  })();
  try {
    await settled(polling, `never reached: ${what}`);
  } finally {
    done = true;
  }
}

/**
 * The timers a client call runs on (its timeouts, backoffs, pauses and the monotonic clock they are
 * measured on), for `vi.useFakeTimers(CLIENT_TIMERS)`. `Date` stays real unless a test fakes it too.
 */
export const CLIENT_TIMERS = { toFake: ['setTimeout', 'clearTimeout', 'performance'] } satisfies Parameters<typeof vi.useFakeTimers>[0];

/**
 * A client logger that counts the attempts that ended: a retry's backoff timer is set as its
 * attempt ends, so a test waits for the `n`th entry before it moves the fake clock past the backoff.
 */
export function attemptCount(): { logger: (entry: LogEntry) => void; ended: () => number } {
  let ended = 0;
  return {
    logger: (entry) => {
      if (entry.event === 'client.attempt') ended += 1;
    },
    ended: () => ended,
  };
}

/**
 * Settles a client call that retries on the fake clock: each time one of its attempts ends
 * (`attempts`, the client's logger), moves the clock by `waitMs`, at least the longest backoff or
 * `Retry-After` the test causes and well under the attempts' timeouts, until the call settles.
 */
export async function acrossRetries<T>(call: Promise<T>, attempts: { ended: () => number }, waitMs = 1_000): Promise<T> {
  let done = false;
  call.then(
    () => (done = true),
    () => (done = true),
  );
  for (let round = 0, seen = 0; round < 20 && !done; round += 1) {
    await reached(() => done || attempts.ended() > seen, 'the next attempt ended');
    seen = attempts.ended();
    if (!done) await vi.advanceTimersByTimeAsync(waitMs);
  }
  return settled(call, 'the call did not settle across its retries');
}
