import { anySignal } from '../internal/abort.js';

/** A call's bound: the caller's signal and the call's deadline as one signal. */
export interface CallBound {
  readonly signal: AbortSignal | undefined;
  /** `performance.now()` at which the call times out. */
  readonly deadline: number | undefined;
  dispose(): void;
}

const noop = () => undefined;

/** `signal` and `timeoutMs` as one signal, aborted with `onTimeout()` at the deadline. */
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
