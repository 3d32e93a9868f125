import { signPayload, verifySignature } from '../../webhooks/index.node.js';
import { allowOnly, type OptionName, type ParsedArgs } from '../args.js';
import type { AttemptTally } from '../attempt-tally.js';
import { durationOption, formatDuration } from '../duration.js';
import { CliError, ExitCode, usage, type ExitCodeValue } from '../exit-codes.js';
import { formatJson } from '../format.js';
import type { CliIo } from '../io.js';
import { readSecret, secretFromStdin, WEBHOOK_SECRET } from '../secret-source.js';
import { shellQuote } from '../shell-quote.js';
import { readBody, webhookUrl } from '../webhook-input.js';
import { webhookSendCommand } from './webhook-send.js';

const SECRET_OPTIONS: readonly OptionName[] = ['secret', 'secret-file', 'secret-stdin', 'timeout', 'json'];

/**
 * `webhook sign`, `webhook verify` and `webhook send`: the provider's HMAC-SHA256 over a body from
 * --file or stdin, and a signed delivery to a receiver.
 */
export async function webhookCommand(args: ParsedArgs, io: CliIo, tally: AttemptTally): Promise<ExitCodeValue> {
  const { positionals, options } = args;
  const action = positionals[1];
  if (action === 'send') return webhookSendCommand(args, io, tally);
  if (action !== 'sign' && action !== 'verify') {
    throw usage(
      action === undefined
        ? 'missing action: webhook sign, webhook verify or webhook send'
        : `unknown action "webhook ${action}": use sign, verify or send`,
      'webhook',
    );
  }
  if (positionals.length > 2) throw usage(`"webhook ${action}" takes no more arguments; pass the body with --file or stdin`, 'webhook');
  allowOnly(
    `webhook ${action}`,
    options,
    action === 'sign' ? [...SECRET_OPTIONS, 'file', 'curl'] : [...SECRET_OPTIONS, 'file', 'signature'],
  );
  const signature = options.signature;
  if (action === 'verify' && (signature === undefined || signature === '')) {
    throw usage('missing --signature: the X-Provider-Signature value to check', 'webhook');
  }
  if (options.file === undefined && secretFromStdin(options, WEBHOOK_SECRET)) {
    throw usage('stdin carries either the body or the secret: pass the body with --file <path>', 'webhook');
  }
  if (options.curl !== undefined && options.file === undefined) {
    throw usage('--curl needs the body in a file (--file <path>): curl sends it from there with --data-binary @<path>', 'webhook');
  }
  const curlUrl = options.curl === undefined ? undefined : webhookUrl(options.curl, '--curl');
  // --timeout bounds what may hang here, a pipe (secret or body) that never closes; without it
  // there is no bound, as before (a slow producer on the pipe is legitimate)
  const timeoutMs = options.timeout === undefined ? undefined : durationOption('webhook', 'timeout', options.timeout, 0);
  const { secret, body } = await withinTimeout(timeoutMs, 'reading the secret and the body', async () => {
    const secret = await readSecret(options, io, WEBHOOK_SECRET, 'webhook');
    if (secret === undefined) {
      throw new CliError(
        ExitCode.Auth,
        'missing signing secret: set CHECKOUT_WEBHOOK_SECRET (or pass --secret-file <path> or --secret-stdin)',
      );
    }
    return { secret, body: await readBody(options.file, io) };
  });

  if (action === 'sign') {
    const header = await signPayload(body, secret);
    if (options.json) {
      io.out(
        formatJson({
          header: 'x-provider-signature',
          signature: header,
          ...(curlUrl === undefined ? {} : { curl: curlLine(curlUrl, header, options.file!) }),
        }),
      );
    } else {
      io.out(curlUrl === undefined ? `${header}\n` : `${curlLine(curlUrl, header, options.file!)}\n`);
    }
    return ExitCode.Ok;
  }
  const valid = await verifySignature({ payload: body, signature, secret });
  if (options.json) io.out(formatJson({ valid }));
  else if (valid) io.out('valid: the signature matches the body\n');
  if (!valid) {
    if (!options.json) io.err('invalid signature: it does not match the body under this secret\n');
    return ExitCode.SignatureInvalid;
  }
  return ExitCode.Ok;
}

/**
 * A curl command that sends the file byte for byte: `--data-binary @file`, because `-d @file`
 * strips the newlines (and carriage returns) from the body, so the signature would not match.
 */
export function curlLine(url: string, signature: string, file: string): string {
  return [
    'curl -sS -X POST',
    shellQuote(url),
    "-H 'content-type: application/json'",
    `-H ${shellQuote(`x-provider-signature: ${signature}`)}`,
    `--data-binary ${shellQuote(`@${file}`)}`,
  ].join(' ');
}

/** `work()`, or exit 1 once `timeoutMs` passed (no bound when `undefined`). */
async function withinTimeout<T>(timeoutMs: number | undefined, what: string, work: () => Promise<T>): Promise<T> {
  if (timeoutMs === undefined) return work();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CliError(ExitCode.ApiError, `${what} took longer than --timeout (${formatDuration(timeoutMs)})`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work(), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
