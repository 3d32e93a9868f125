/** The CLI's exit codes, explained in its help. Scripts rely on them: they only ever get new members. */
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
