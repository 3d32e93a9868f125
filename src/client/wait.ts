import { WaitTimeoutError } from '../errors.js';
import { anySignal, sleep } from '../internal/abort.js';
import { checkOptions, timerMs } from '../internal/arguments.js';
import { checkRequestOptions } from './calls.js';
import type { RequestOptions, WaitOptions } from './options.js';

const WAIT_OPTIONS = ['timeoutMs', 'intervalMs', 'signal'] as const satisfies readonly (keyof WaitOptions)[];

/** `read` every `intervalMs` until `until(record)`, for at most `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  read: (options: RequestOptions) => Promise<T>,
  until: (record: T) => boolean,
  options: WaitOptions,
): Promise<T> {
  if (typeof until !== 'function') throw new TypeError(`until must be a function of the ${what}`);
  checkOptions(`wait for the ${what}`, options, WAIT_OPTIONS);
  const timeoutMs = timerMs('timeoutMs', options.timeoutMs, 60_000);
  const intervalMs = timerMs('intervalMs', options.intervalMs, 2_000);
  const { signal } = checkRequestOptions({ signal: options.signal });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const linked = signal === undefined ? undefined : anySignal([signal, deadline.signal]);
  const combined = linked === undefined ? deadline.signal : linked.signal;
  let last: T | undefined;
  try {
    for (;;) {
      last = await read({ signal: combined });
      if (until(last)) return last;
      await sleep(intervalMs, combined);
    }
  } catch (error) {
    if (signal?.aborted || !deadline.signal.aborted) throw error;
    throw new WaitTimeoutError(`The ${what} did not reach the awaited state within ${timeoutMs} ms`, last);
  } finally {
    clearTimeout(timer);
    linked?.release();
  }
}
