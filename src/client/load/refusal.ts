/** Why the client refused to send a request, as its telemetry's `error.type` (docs/observability.md). */
export type Refusal = 'checkout.paused' | 'checkout.queue_full' | 'checkout.queue_timeout';

/** A registry symbol, so the CommonJS and ESM builds read each other's. */
export const REFUSAL = Symbol.for('checkout-partner-sdk.refusal');

/** Marks `error` as the client's own refusal, not enumerable. */
export function refused<E extends object>(error: E, refusal: Refusal): E {
  Object.defineProperty(error, REFUSAL, { value: refusal, enumerable: false });
  return error;
}

/** The refusal `error` carries, if any. */
export function refusalOf(error: unknown): Refusal | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const value: unknown = (error as { [REFUSAL]?: unknown })[REFUSAL];
  return typeof value === 'string' ? (value as Refusal) : undefined;
}
