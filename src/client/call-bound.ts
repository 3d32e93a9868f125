import { anySignal } from '../internal/abort.js';

/** A call's own bound: the caller's signal, and the call's deadline when it has one. */
export interface CallBound {
  /** Aborts when the caller aborts (with its reason) or at the deadline (with the timeout error). */
  readonly signal: AbortSignal | undefined;
  /** `performance.now()` at which the call times out, or `undefined` for no deadline. */
  readonly deadline: number | undefined;
  /** Clears the deadline's timer; call it once the call has settled. */
  dispose(): void;
}

const noop = () => undefined;

/**
 * `signal` and `timeoutMs` as one signal that bounds everything the call waits on (the token
 * exchange, every attempt, every retry delay): at the deadline it aborts with `onTimeout()`.
 * Without a `timeoutMs` nothing is allocated and the caller's signal is used as is.
 */
export function callBound(signal: AbortSignal | undefined, timeoutMs: number | undefined, onTimeout: () => unknown): CallBound {
  if (timeoutMs === undefined) return { signal, deadline: undefined, dispose: noop };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(onTimeout()), timeoutMs);
  const linked = signal === undefined ? undefined : anySignal([signal, controller.signal]);
  return {
    signal: linked === undefined ? controller.signal : linked.signal,
    deadline: performance.now() + timeoutMs,
    dispose: () => {
      clearTimeout(timer);
      linked?.release();
    },
  };
}
