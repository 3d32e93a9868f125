import { refusalOf } from '../client/load/refusal.js';

/** `error.type` per the HTTP semantic conventions (a refusal has its own); never the message, which may quote the service. */
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
