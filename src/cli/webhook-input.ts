import { readFile } from 'node:fs/promises';
import { quoted } from './escape.js';
import { CliError, ExitCode, usage } from './exit-codes.js';
import type { CliIo } from './io.js';

/** An absolute http(s) URL from a flag, as its normalised href; a usage error otherwise. */
export function webhookUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usage(`${flag} must be an absolute http(s) URL, got ${quoted(value)}`, 'webhook');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usage(`${flag} must use http or https, got ${quoted(url.protocol)}`, 'webhook');
  if (url.username !== '' || url.password !== '') throw usage(`${flag} must not carry credentials (user:password@)`, 'webhook');
  return url.href;
}

/** The body, byte for byte, from --file or stdin. */
export async function readBody(file: string | undefined, io: CliIo, flag = '--file'): Promise<Uint8Array> {
  if (file !== undefined) {
    if (file === '') throw usage(`${flag} needs a path`, 'webhook');
    try {
      return new Uint8Array(await readFile(file));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new CliError(ExitCode.Usage, `cannot read ${flag} ${quoted(file)}: ${typeof code === 'string' ? code : 'read failed'}`);
    }
  }
  if (io.stdinIsTTY) throw usage(`no body: pass ${flag} <path> or pipe the body on stdin`, 'webhook');
  return io.readStdin();
}
