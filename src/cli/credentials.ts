import { CheckoutClient } from '../index.js';
import type { ParsedOptions } from './args.js';
import type { AttemptTally } from './attempt-tally.js';
import { CliError, ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';
import { PARTNER_SECRET, readSecret } from './secret-source.js';

/** A client from the flags, else the environment (exit 3 names what is missing); its `logger` counts into `tally`. */
export async function clientFrom(options: ParsedOptions, io: CliIo, tally: AttemptTally, command: string): Promise<CheckoutClient> {
  const pick = (flag: string | undefined, envName: string) => (flag !== undefined && flag !== '' ? flag : io.env[envName] || undefined);
  const baseUrl = pick(options['base-url'], 'CHECKOUT_BASE_URL');
  const partnerId = pick(options['partner-id'], 'CHECKOUT_PARTNER_ID');
  const partnerSecret = await readSecret(options, io, PARTNER_SECRET, command);
  const missing = [
    baseUrl === undefined ? 'CHECKOUT_BASE_URL (or --base-url)' : undefined,
    partnerId === undefined ? 'CHECKOUT_PARTNER_ID (or --partner-id)' : undefined,
    partnerSecret === undefined ? 'CHECKOUT_PARTNER_SECRET (or --partner-secret-file, --partner-secret-stdin)' : undefined,
  ].filter((m) => m !== undefined);
  if (missing.length > 0) {
    throw new CliError(
      ExitCode.Auth,
      `missing credentials: set ${missing.join(', ')}`,
      'Try "checkout-partner sandbox" for a local fake service and credentials.',
    );
  }
  const allowInsecureHttp = options['allow-insecure-http'] === true;
  try {
    // timeoutMs bounds one attempt; each call also gets the command's --timeout, which bounds it whole
    return new CheckoutClient({
      baseUrl,
      partnerId,
      partnerSecret,
      allowInsecureHttp,
      maxRetries: 2,
      timeoutMs: 30_000,
      logger: tally.logger,
    });
  } catch (error) {
    // the client's argument errors name the option, never its value; its advice is a flag here
    const message = error instanceof Error ? error.message : String(error);
    const insecure = message.includes('plain http');
    throw new CliError(
      ExitCode.Usage,
      insecure ? message.replace(/, or pass allowInsecureHttp: true.*$/, '') : message,
      insecure ? 'Use https, or pass --allow-insecure-http if this is a private network you trust.' : undefined,
    );
  }
}
