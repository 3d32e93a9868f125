import { readFile } from 'node:fs/promises';
import { signPayload, verifySignature } from '../../webhooks/index.node.js';
import { allowOnly, type ParsedArgs } from '../args.js';
import { CliError, ExitCode, usage, type ExitCodeValue } from '../exit-codes.js';
import { formatJson } from '../format.js';
import type { CliIo } from '../io.js';

/** `webhook sign` and `webhook verify`: the provider's HMAC-SHA256 over a body from --file or stdin. */
export async function webhookCommand({ positionals, options }: ParsedArgs, io: CliIo): Promise<ExitCodeValue> {
  const action = positionals[1];
  if (action !== 'sign' && action !== 'verify') {
    throw usage(action === undefined ? 'missing action: webhook sign or webhook verify' : `unknown action "webhook ${action}": use sign or verify`, 'webhook');
  }
  if (positionals.length > 2) throw usage(`"webhook ${action}" takes no more arguments; pass the body with --file or stdin`, 'webhook');
  allowOnly(`webhook ${action}`, options, action === 'sign' ? ['file', 'secret', 'json'] : ['file', 'secret', 'signature', 'json']);
  const signature = options.signature;
  if (action === 'verify' && (signature === undefined || signature === '')) {
    throw usage('missing --signature: the X-Provider-Signature value to check', 'webhook');
  }
  const secret = options.secret !== undefined && options.secret !== '' ? options.secret : io.env.CHECKOUT_WEBHOOK_SECRET || undefined;
  if (secret === undefined) {
    throw new CliError(ExitCode.Auth, 'missing signing secret: set CHECKOUT_WEBHOOK_SECRET (or pass --secret)');
  }
  const body = await readBody(options.file, io);

  if (action === 'sign') {
    const header = await signPayload(body, secret);
    io.out(options.json ? formatJson({ header: 'x-provider-signature', signature: header }) : `${header}\n`);
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

async function readBody(file: string | undefined, io: CliIo): Promise<Uint8Array> {
  if (file !== undefined) {
    if (file === '') throw usage('--file needs a path', 'webhook');
    try {
      return new Uint8Array(await readFile(file));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new CliError(ExitCode.Usage, `cannot read --file ${JSON.stringify(file)}: ${typeof code === 'string' ? code : 'read failed'}`);
    }
  }
  if (io.stdinIsTTY) throw usage('no body: pass --file <path> or pipe the body on stdin', 'webhook');
  return io.readStdin();
}
