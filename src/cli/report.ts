import { ApiError, CheckoutError } from '../index.js';
import { CliError, ExitCode, type ExitCodeValue } from './exit-codes.js';

/** A human message and exit code for anything a command threw. Never a stack, a header or a secret. */
export function report(error: unknown): { message: string; exitCode: ExitCodeValue } {
  if (error instanceof CliError) {
    return { message: error.hint ? `${error.message}\n${error.hint}` : error.message, exitCode: error.exitCode };
  }
  if (error instanceof ApiError) {
    const id = error.requestId ? ` (request id ${error.requestId})` : '';
    switch (error.name) {
      case 'AuthenticationError':
        return {
          message: `authentication failed: ${error.message}${id}\nCheck CHECKOUT_PARTNER_ID and CHECKOUT_PARTNER_SECRET (or --partner-id / --partner-secret).`,
          exitCode: ExitCode.Auth,
        };
      case 'PermissionDeniedError':
        return { message: `permission denied: ${error.message}${id}`, exitCode: ExitCode.Auth };
      case 'NotFoundError':
        return { message: `not found: ${error.message}${id}`, exitCode: ExitCode.NotFound };
      case 'ConnectionError':
        return { message: `could not reach the service: ${error.message}\nCheck CHECKOUT_BASE_URL (or --base-url).`, exitCode: ExitCode.ApiError };
      default:
        return { message: `request failed: ${error.message}${id}`, exitCode: ExitCode.ApiError };
    }
  }
  if (error instanceof CheckoutError) return { message: error.message, exitCode: ExitCode.ApiError };
  if (error instanceof TypeError) return { message: error.message, exitCode: ExitCode.Usage };
  if (error instanceof Error && error.name === 'AbortError') return { message: 'interrupted', exitCode: ExitCode.ApiError };
  return { message: `unexpected error: ${error instanceof Error ? error.message : String(error)}`, exitCode: ExitCode.ApiError };
}
