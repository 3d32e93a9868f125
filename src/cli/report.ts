import { ApiError, CheckoutError } from '../index.js';
import type { AttemptTally } from './attempt-tally.js';
import { escapeText } from './escape.js';
import { CliError, ExitCode, type ExitCodeValue } from './exit-codes.js';

/**
 * A message and exit code for anything a command threw: never a stack, a header or a secret; any
 * outside text escaped; a failed call says how many HTTP attempts the command made.
 */
export function report(error: unknown, tally?: AttemptTally): { message: string; exitCode: ExitCodeValue } {
  const lines = (first: string, hint?: string) => (hint === undefined ? escapeText(first) : `${escapeText(first)}\n${escapeText(hint)}`);
  if (error instanceof CliError) return { message: lines(error.message, error.hint), exitCode: error.exitCode };
  if (error instanceof ApiError) {
    const details = [
      error.requestId ? `request id ${error.requestId}` : undefined,
      tally && tally.count > 0 ? tally.describe() : undefined,
    ].filter((part) => part !== undefined);
    const said = `${error.message}${details.length > 0 ? ` (${details.join(', ')})` : ''}`;
    switch (error.name) {
      case 'AuthenticationError':
        return {
          message: lines(
            `authentication failed: ${said}`,
            'Check CHECKOUT_PARTNER_ID and the partner secret (CHECKOUT_PARTNER_SECRET, --partner-secret-file or --partner-secret-stdin).',
          ),
          exitCode: ExitCode.Auth,
        };
      case 'PermissionDeniedError':
        return { message: lines(`permission denied: ${said}`), exitCode: ExitCode.Auth };
      case 'NotFoundError':
        return { message: lines(`not found: ${said}`), exitCode: ExitCode.NotFound };
      case 'ConnectionError':
        return {
          message: lines(`could not reach the service: ${said}`, 'Check CHECKOUT_BASE_URL (or --base-url).'),
          exitCode: ExitCode.ApiError,
        };
      case 'TimeoutError':
        return {
          message: lines(
            `no answer in time: ${said}`,
            'Check CHECKOUT_BASE_URL (or --base-url), or allow more with --timeout (e.g. --timeout 60s).',
          ),
          exitCode: ExitCode.ApiError,
        };
      default:
        return { message: lines(`request failed: ${said}`), exitCode: ExitCode.ApiError };
    }
  }
  if (error instanceof CheckoutError) return { message: lines(error.message), exitCode: ExitCode.ApiError };
  if (error instanceof TypeError) return { message: lines(error.message), exitCode: ExitCode.Usage };
  if (error instanceof Error && error.name === 'AbortError') return { message: 'interrupted', exitCode: ExitCode.ApiError };
  return { message: lines(`unexpected error: ${error instanceof Error ? error.message : String(error)}`), exitCode: ExitCode.ApiError };
}
