/**
 * Why the client refused to send a request, as the `error.type` its telemetry records: a request
 * that never left has no `http.response.status_code`, and must not read as the service's 429.
 * The values are the SDK's own (namespaced, lowercase, as the semantic conventions ask of custom
 * `error.type` values), listed in docs/observability.md.
 */
export type Refusal = 'checkout.paused' | 'checkout.queue_full' | 'checkout.queue_timeout';

/** Where a refused call's error holds its {@link Refusal}: a registry symbol, so every copy of the SDK (its CommonJS and ESM builds) reads it. */
export const REFUSAL = Symbol.for('checkout-partner-sdk.refusal');

/** Marks `error` as a refusal of the client's own (not enumerable: `JSON.stringify` and logs show the error as before). */
export function refused<E extends object>(error: E, refusal: Refusal): E {
  Object.defineProperty(error, REFUSAL, { value: refusal, enumerable: false });
  return error;
}

/** The refusal `error` carries, if any (read by shape: the error may come from another copy of the SDK). */
export function refusalOf(error: unknown): Refusal | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const value: unknown = (error as { [REFUSAL]?: unknown })[REFUSAL];
  return typeof value === 'string' ? (value as Refusal) : undefined;
}
