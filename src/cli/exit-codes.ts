/**
 * The CLI's exit codes. Scripts may rely on them; they only ever get new members.
 *
 * | code | meaning |
 * |---|---|
 * | 0 | success |
 * | 1 | the service answered with an error, could not be reached, or did not answer within `--timeout`; a webhook receiver did not accept the event |
 * | 2 | usage error: unknown command or option, missing or bad argument |
 * | 3 | missing credentials, or authentication failed (401/403) |
 * | 4 | not found (404) |
 * | 5 | `--wait-until` timed out |
 * | 6 | webhook signature invalid |
 * | 7 | `--wait-until`: the record reached a final status that can never become the awaited one |
 */
export const ExitCode = {
  Ok: 0,
  ApiError: 1,
  Usage: 2,
  Auth: 3,
  NotFound: 4,
  WaitTimeout: 5,
  SignatureInvalid: 6,
  FinalStatus: 7,
} as const;

/** One of {@link ExitCode}'s values. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure the CLI reports with its own message and exit code (no stack trace). */
export class CliError extends Error {
  override readonly name = 'CliError' as const;
  readonly exitCode: ExitCodeValue;
  /** A second line telling the user what to do. */
  readonly hint: string | undefined;

  constructor(exitCode: ExitCodeValue, message: string, hint?: string) {
    super(message);
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

/** A usage error: exit code 2, with a pointer to the command's help. */
export function usage(message: string, command?: string): CliError {
  return new CliError(ExitCode.Usage, message, `Run "checkout-partner ${command ? `${command} ` : ''}--help" for usage.`);
}
