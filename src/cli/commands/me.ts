import { allowOnly, CREDENTIAL_OPTIONS, type ParsedArgs } from '../args.js';
import { clientFrom } from '../credentials.js';
import { ExitCode, usage, type ExitCodeValue } from '../exit-codes.js';
import { formatJson, formatRecord } from '../format.js';
import type { CliIo } from '../io.js';

/** `me`: GET /auth/me, proving the credentials work. */
export async function meCommand({ positionals, options }: ParsedArgs, io: CliIo): Promise<ExitCodeValue> {
  allowOnly('me', options, [...CREDENTIAL_OPTIONS, 'json']);
  if (positionals.length > 1) throw usage(`"me" takes no arguments, got "${positionals[1]}"`, 'me');
  const client = clientFrom(options, io);
  const me = await client.getMe({ signal: io.signal });
  if (options.json) {
    io.out(formatJson(me));
  } else {
    io.out(`Credentials OK for partner ${client.partnerId} at ${client.baseUrl}\n`);
    if (Object.keys(me).length > 0) io.out(formatRecord(me));
  }
  return ExitCode.Ok;
}
