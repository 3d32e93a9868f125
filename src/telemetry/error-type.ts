import { refusalOf } from '../client/load/refusal.js';

/**
 * `error.type` of a failed call, as the HTTP semantic conventions say: the status code when an
 * error status was received (`"503"`), else the error's class name (`TimeoutError`,
 * `ConnectionError`, `ResponseValidationError`, `AbortError`), `_OTHER` for a throw that is not an
 * error. A call the client refused to send has a value of its own, `checkout.paused`,
 * `checkout.queue_full` or `checkout.queue_timeout` (never `"429"`: no response came). Never the
 * message, which may quote what the service answered.
 */
export function errorType(error: unknown): string {
  const refusal = refusalOf(error);
  if (refusal !== undefined) return refusal;
  // by shape, not class: this module may be another copy than the client's (its CommonJS build)
  const status = (error as { status?: unknown } | null | undefined)?.status;
  if (typeof status === 'number' && status >= 400) return String(status);
  if (error instanceof Error || error instanceof DOMException) return error.name;
  return '_OTHER';
}

/** Whether a call's failure was a refusal of the client's own: no request left, so no `http.response.status_code`. */
export function refusedUnsent(error: unknown): boolean {
  return refusalOf(error) !== undefined;
}
