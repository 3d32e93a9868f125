/** What a client's load control tells an observer (its telemetry), synchronously on the request path. */
export interface LoadHooks {
  queued?(event: { method: string; path: string; waitedMs: number }): void;
  retryDenied?(event: { available: number }): void;
  /** Once per dry spell. */
  budgetExhausted?(event: { available: number; capacity: number }): void;
  budgetRestored?(event: { available: number; capacity: number }): void;
  paused?(event: { pauseMs: number }): void;
  /** `undefined` once the adaptive rate is lifted. */
  rateChanged?(event: { requestsPerSecond: number | undefined }): void;
}

/** Calls `hooks[name]`, dropping what it throws: an observer must never fail a request. */
export function notify<K extends keyof LoadHooks>(hooks: LoadHooks, name: K, event: Parameters<NonNullable<LoadHooks[K]>>[0]): void {
  const hook = hooks[name] as ((event: unknown) => void) | undefined;
  if (hook === undefined) return;
  try {
    hook.call(hooks, event);
  } catch {
    // dropped
  }
}
