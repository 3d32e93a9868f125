import { open } from 'node:fs/promises';
import type { OptionName, ParsedOptions } from './args.js';
import { quoted } from './escape.js';
import { CliError, ExitCode, usage } from './exit-codes.js';
import type { CliIo } from './io.js';

/** The most a secret file or piped secret may hold: anything longer is a wrong file, not a secret. */
export const MAX_SECRET_BYTES = 64 * 1024;

/** The four ways one secret may come in, named for messages. */
export interface SecretSource {
  /** The argv flag (`partner-secret`, `secret`): works, with a warning. */
  readonly argv: OptionName;
  /** The file flag (`partner-secret-file`, `secret-file`); `-` reads stdin. */
  readonly file: OptionName;
  /** The stdin flag (`partner-secret-stdin`, `secret-stdin`). */
  readonly stdin: OptionName;
  /** The environment variable (`CHECKOUT_PARTNER_SECRET`, `CHECKOUT_WEBHOOK_SECRET`). */
  readonly env: string;
}

export const PARTNER_SECRET: SecretSource = {
  argv: 'partner-secret',
  file: 'partner-secret-file',
  stdin: 'partner-secret-stdin',
  env: 'CHECKOUT_PARTNER_SECRET',
};

export const WEBHOOK_SECRET: SecretSource = { argv: 'secret', file: 'secret-file', stdin: 'secret-stdin', env: 'CHECKOUT_WEBHOOK_SECRET' };

/** Whether this secret is to be read from stdin (`--x-stdin` or `--x-file -`), which then cannot carry a body. */
export function secretFromStdin(options: ParsedOptions, source: SecretSource): boolean {
  return options[source.stdin] === true || options[source.file] === '-';
}

/**
 * The secret from the flag, the file, stdin or the environment, in that order (at most one flag);
 * `undefined` if none. One trailing newline of a file or stdin is dropped; argv draws a warning.
 */
export async function readSecret(options: ParsedOptions, io: CliIo, source: SecretSource, command: string): Promise<string | undefined> {
  const argv = options[source.argv];
  const file = options[source.file];
  const given = [argv !== undefined && argv !== '', file !== undefined, options[source.stdin] === true].filter(Boolean).length;
  if (given > 1) throw usage(`give the secret one way: --${source.argv}, --${source.file} or --${source.stdin}`, command);
  if (typeof argv === 'string' && argv !== '') {
    io.err(
      `checkout-partner: warning: --${source.argv} shows the secret in the process list (ps) and the shell history; ` +
        `prefer ${source.env}, --${source.file} <path> or --${source.stdin}\n`,
    );
    return argv;
  }
  if (typeof file === 'string' && file !== '-')
    return fromBytes(await readSecretFile(file, source, command), `--${source.file} ${quoted(file)}`, source);
  if (secretFromStdin(options, source)) {
    if (io.stdinIsTTY) {
      throw usage(
        `--${source.stdin} reads the secret from a pipe, and stdin is a terminal: e.g. pass show checkout | checkout-partner ${command} --${source.stdin}`,
        command,
      );
    }
    const bytes = await io.readStdin(MAX_SECRET_BYTES);
    if (bytes.byteLength > MAX_SECRET_BYTES) throw tooLong(`stdin (--${source.stdin})`, command);
    return fromBytes(bytes, `stdin (--${source.stdin})`, source);
  }
  const fromEnv = io.env[source.env];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

async function readSecretFile(path: string, source: SecretSource, command: string): Promise<Uint8Array> {
  if (path === '') throw usage(`--${source.file} needs a path (or - for stdin)`, command);
  let handle;
  try {
    handle = await open(path, 'r');
    // one byte past the limit tells a too-long file from one that fits, without reading a huge one
    const buffer = new Uint8Array(MAX_SECRET_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.byteLength - length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.byteLength) throw tooLong(`--${source.file} ${quoted(path)}`, command);
    }
    return buffer.subarray(0, length);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as { code?: unknown }).code;
    throw new CliError(ExitCode.Usage, `cannot read --${source.file} ${quoted(path)}: ${typeof code === 'string' ? code : 'read failed'}`);
  } finally {
    await handle?.close();
  }
}

function tooLong(where: string, command: string) {
  return usage(`the secret in ${where} is longer than ${MAX_SECRET_BYTES / 1024} KiB: is it the right file?`, command);
}

function fromBytes(bytes: Uint8Array, where: string, source: SecretSource): string {
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes).replace(/\r?\n$/, '');
  if (text === '')
    throw new CliError(
      ExitCode.Auth,
      `missing credentials: the secret in ${where} is empty`,
      `Put the secret in it, or set ${source.env}.`,
    );
  return text;
}
