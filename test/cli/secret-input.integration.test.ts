import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeCheckout, type FakeServer } from 'checkout-partner-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const SECRET = 'file-secret-9c1e';
const fake = createFakeCheckout({ partners: [{ partnerId: 'secret-partner', partnerSecret: SECRET }] });
let server: FakeServer;
let env: Record<string, string>;
let dir: string;

/** A file holding `content`, in this test's temporary directory. */
async function file(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

beforeAll(async () => {
  server = await fake.listen();
  env = { CHECKOUT_BASE_URL: server.url, CHECKOUT_PARTNER_ID: 'secret-partner' };
  dir = await mkdtemp(join(tmpdir(), 'checkout-cli-secret-'));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  fake.reset();
});

describe('the partner secret from a file or stdin', () => {
  it('--partner-secret-file reads it, dropping the one trailing newline an editor leaves (LF or CRLF)', async () => {
    for (const [name, content] of [
      ['lf', `${SECRET}\n`],
      ['crlf', `${SECRET}\r\n`],
      ['bare', SECRET],
    ] as const) {
      const result = await runCli(['me', '--partner-secret-file', await file(`secret-${name}`, content)], { env });
      expect(result.code, name).toBe(0);
      expect(result.stderr, name).toBe('');
      expect(result.stdout + result.stderr).not.toContain(SECRET);
    }
  });

  it('--partner-secret-stdin and --partner-secret-file - read it from a pipe, without a warning', async () => {
    const stdin = await runCli(['me', '--partner-secret-stdin'], { env, input: `${SECRET}\n` });
    expect(stdin).toMatchObject({ code: 0, stderr: '' });
    const dash = await runCli(['token', '--partner-secret-file', '-'], { env, input: SECRET });
    expect(dash).toMatchObject({ code: 0, stderr: '' });
  });

  it('a wrong secret in the file is refused by the service (the file is really used, not the environment)', async () => {
    const result = await runCli(['me', '--partner-secret-file', await file('wrong', 'not-the-secret\n')], {
      env: { ...env, CHECKOUT_PARTNER_SECRET: SECRET },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/authentication failed/);
  });

  it('an empty file is missing credentials (3); an absent one, a too large one or two ways at once are usage errors (2); nothing is sent', async () => {
    const empty = await runCli(['me', '--partner-secret-file', await file('empty', '\n')], { env });
    expect(empty.code).toBe(3);
    expect(empty.stderr).toMatch(/the secret in --partner-secret-file ".*empty" is empty/);
    const absent = await runCli(['me', '--partner-secret-file', join(dir, 'absent')], { env });
    expect(absent.code).toBe(2);
    expect(absent.stderr).toMatch(/cannot read --partner-secret-file ".*absent": ENOENT/);
    const huge = await runCli(['me', '--partner-secret-file', await file('huge', new Uint8Array(200_000).fill(97))], { env });
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/longer than 64 KiB/);
    const twoWays = await runCli(['me', '--partner-secret', SECRET, '--partner-secret-stdin'], { env, input: SECRET });
    expect(twoWays.code).toBe(2);
    expect(twoWays.stderr).toMatch(/give the secret one way/);
    const emptyStdin = await runCli(['me', '--partner-secret-stdin'], { env, input: '' });
    expect(emptyStdin.code).toBe(3);
    expect(fake.stats.requests).toBe(0);
  });

  it('the environment still works, without a warning', async () => {
    const result = await runCli(['me'], { env: { ...env, CHECKOUT_PARTNER_SECRET: SECRET } });
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });

  it('--partner-secret on argv works, with one warning line naming the safer ways and not the secret', async () => {
    const result = await runCli(['me', '--partner-secret', SECRET], { env });
    expect(result.code).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/warning: --partner-secret shows the secret in the process list \(ps\) and the shell history/);
    for (const way of ['CHECKOUT_PARTNER_SECRET', '--partner-secret-file', '--partner-secret-stdin']) expect(lines[0]).toContain(way);
    expect(result.stderr + result.stdout).not.toContain(SECRET);
  });
});

describe('the webhook signing secret from a file or stdin', () => {
  const hookSecret = 'whsec-file-3';
  const body = '{"eventId":"e-1","type":"otc.trade.settled"}\n';
  const expected = `sha256=${createHmac('sha256', hookSecret).update(body).digest('hex')}`;

  it('webhook sign --secret-file and --secret-stdin sign with it; the body then comes from --file', async () => {
    const bodyFile = await file('event.json', body);
    const fromFile = await runCli(['webhook', 'sign', '--secret-file', await file('whsec', `${hookSecret}\n`)], { input: body });
    expect(fromFile).toMatchObject({ code: 0, stdout: `${expected}\n`, stderr: '' });
    const fromStdin = await runCli(['webhook', 'sign', '--file', bodyFile, '--secret-stdin'], { input: `${hookSecret}\n` });
    expect(fromStdin).toMatchObject({ code: 0, stdout: `${expected}\n`, stderr: '' });
    const verify = await runCli(['webhook', 'verify', '--file', bodyFile, '--secret-file', '-', '--signature', expected], {
      input: hookSecret,
    });
    expect(verify.code).toBe(0);
  });

  it('stdin cannot carry both the body and the secret', async () => {
    const result = await runCli(['webhook', 'sign', '--secret-stdin'], { input: hookSecret });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/stdin carries either the body or the secret/);
  });

  it('--secret on argv works, with the warning', async () => {
    const result = await runCli(['webhook', 'sign', '--secret', hookSecret], { input: body });
    expect(result).toMatchObject({ code: 0, stdout: `${expected}\n` });
    expect(result.stderr).toMatch(/warning: --secret shows the secret .*CHECKOUT_WEBHOOK_SECRET, --secret-file <path> or --secret-stdin/);
    expect(result.stderr).not.toContain(hookSecret);
  });
});
