import { ApiError } from '../errors.js';

/**
 * `error.type` of a failed call, as the HTTP semantic conventions say: the status code when an
 * error status was received (`"503"`), else the error's class name (`TimeoutError`,
 * `ConnectionError`, `ResponseValidationError`, `AbortError`), `_OTHER` for a throw that is not an
 * error. Never the message, which may quote what the service answered.
 */
export function errorType(error: unknown): string {
  if (error instanceof ApiError && error.status !== undefined && error.status >= 400) return String(error.status);
  if (error instanceof Error || error instanceof DOMException) return error.name;
  return '_OTHER';
}
