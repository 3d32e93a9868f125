import { jwtExpiry } from '../../client/token-cache.js';
import { allowOnly, CREDENTIAL_OPTIONS, type ParsedArgs } from '../args.js';
import type { AttemptTally } from '../attempt-tally.js';
import { clientFrom } from '../credentials.js';
import { CALL_TIMEOUT_MS, durationOption } from '../duration.js';
import { escapeText } from '../escape.js';
import { ExitCode, usage, type ExitCodeValue } from '../exit-codes.js';
import { formatJson } from '../format.js';
import type { CliIo } from '../io.js';

/** `token`: mint a token and show its expiry; the token itself only with --show. */
export async function tokenCommand({ positionals, options }: ParsedArgs, io: CliIo, tally: AttemptTally): Promise<ExitCodeValue> {
  allowOnly('token', options, [...CREDENTIAL_OPTIONS, 'json', 'show', 'timeout']);
  if (positionals.length > 1) throw usage(`"token" takes no arguments, got "${positionals[1]}"`, 'token');
  const timeoutMs = durationOption('token', 'timeout', options.timeout, CALL_TIMEOUT_MS);
  const client = await clientFrom(options, io, tally, 'token');
  const token = await client.getAccessToken({ signal: io.signal, timeoutMs });
  // the token's own expiry where it says (a JWT's exp); else the client's reuse deadline
  const expiresAt = jwtExpiry(token) ?? client.tokenExpiresAt;
  const expiresIn = expiresAt === undefined ? undefined : Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
  const when = expiresAt === undefined ? 'an unknown time' : `${new Date(expiresAt).toISOString()} (in ${expiresIn} s)`;
  if (options.json) {
    io.out(
      formatJson({
        tokenType: 'Bearer',
        expiresAt: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
        expiresInSeconds: expiresIn ?? null,
        ...(options.show ? { accessToken: token } : {}),
      }),
    );
  } else if (options.show) {
    io.err(`Access token for partner ${escapeText(client.partnerId)}, expires at ${when}\n`);
    io.out(`${token}\n`);
  } else {
    io.out(`Access token obtained for partner ${escapeText(client.partnerId)}; it expires at ${when}.\n`);
    io.out('The token is not printed; pass --show to print it.\n');
  }
  return ExitCode.Ok;
}
