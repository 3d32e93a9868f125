import { allowOnly, CREDENTIAL_OPTIONS, type ParsedArgs } from '../args.js';
import type { AttemptTally } from '../attempt-tally.js';
import { clientFrom } from '../credentials.js';
import { CALL_TIMEOUT_MS, durationOption } from '../duration.js';
import { escapeText } from '../escape.js';
import { ExitCode, usage, type ExitCodeValue } from '../exit-codes.js';
import { formatJson, formatRecord } from '../format.js';
import type { CliIo } from '../io.js';

/** `me`: GET /auth/me, proving the credentials work. */
export async function meCommand({ positionals, options }: ParsedArgs, io: CliIo, tally: AttemptTally): Promise<ExitCodeValue> {
  allowOnly('me', options, [...CREDENTIAL_OPTIONS, 'json', 'timeout']);
  if (positionals.length > 1) throw usage(`"me" takes no arguments, got "${positionals[1]}"`, 'me');
  const timeoutMs = durationOption('me', 'timeout', options.timeout, CALL_TIMEOUT_MS);
  const client = await clientFrom(options, io, tally, 'me');
  const me = await client.getMe({ signal: io.signal, timeoutMs });
  if (options.json) {
    io.out(formatJson(me));
  } else {
    io.out(`Credentials OK for partner ${escapeText(client.partnerId)} at ${escapeText(client.baseUrl)}\n`);
    if (Object.keys(me).length > 0) io.out(formatRecord(me));
  }
  return ExitCode.Ok;
}
