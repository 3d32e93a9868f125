/**
 * What the client's load control tells an observer (the OpenTelemetry instrumentation, a test): one
 * small object per client, given to its `LoadControl`, never global. Every callback is optional and
 * is called synchronously on the request path, so it must be cheap and must not throw (a throw is
 * caught and dropped). Nothing is reported while the service is healthy and no limit is reached.
 */
export interface LoadHooks {
  /**
   * A request (an attempt, or the token exchange) waited for its turn: for a free slot under
   * `rateLimit.concurrency`, for the pace, for a `Retry-After` pause or for the adaptive rate.
   * `waitedMs` is the time it spent queued; it is also added to the call's `CallTrace.queuedMs`.
   */
  queued?(event: { method: string; path: string; waitedMs: number }): void;
  /** The retry budget could not pay for a retry: the call fails on the error it just got. */
  retryDenied?(event: { available: number }): void;
  /** The retry budget ran dry (reported once per dry spell; retries are denied until it refills). */
  budgetExhausted?(event: { available: number; capacity: number }): void;
  /** The retry budget holds enough for a retry again after a dry spell. */
  budgetRestored?(event: { available: number; capacity: number }): void;
  /** A 429 with `Retry-After` paused every request of the client for `pauseMs`. */
  paused?(event: { pauseMs: number }): void;
  /**
   * The adaptive rate changed: lowered after a 429 without `Retry-After`, or raised as calls
   * succeed; `undefined` once it has climbed back far enough to be lifted.
   */
  rateChanged?(event: { requestsPerSecond: number | undefined }): void;
}

/** Calls `hooks[name]` (as a method) with `event`, dropping what it throws: an observer must never fail a request. */
export function notify<K extends keyof LoadHooks>(hooks: LoadHooks, name: K, event: Parameters<NonNullable<LoadHooks[K]>>[0]): void {
  const hook = hooks[name] as ((event: unknown) => void) | undefined;
  if (hook === undefined) return;
  try {
    hook.call(hooks, event);
  } catch {
    // an observer's failure is not the call's
  }
}
