/** What a command may touch: output streams, the environment, stdin, and a signal for Ctrl-C. */
export interface CliIo {
  /** Writes to stdout (the command's result). */
  out(text: string): void;
  /** Writes to stderr (progress, hints, errors). */
  err(text: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether stdin is a terminal (then there is no piped body to read). */
  readonly stdinIsTTY: boolean;
  /** All of stdin; with `maxBytes`, stops once more arrived (the caller refuses that), so an endless pipe is not kept. */
  readStdin(maxBytes?: number): Promise<Uint8Array>;
  /** Aborts on SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
}
