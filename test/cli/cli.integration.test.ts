import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeCheckout, type FakeServer } from 'checkout-partner-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from './run-cli.js';
import { KINDS } from '../helpers/kinds.js';

const SECRET = 'cli-test-secret-7f3a';
const fake = createFakeCheckout({ partners: [{ partnerId: 'cli-partner', partnerSecret: SECRET }] });
let server: FakeServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await fake.listen();
  env = { CHECKOUT_BASE_URL: server.url, CHECKOUT_PARTNER_ID: 'cli-partner', CHECKOUT_PARTNER_SECRET: SECRET };
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  fake.reset();
});

/** Neither stream ever shows the partner secret. */
function expectNoSecret(result: { stdout: string; stderr: string }): void {
  expect(result.stdout).not.toContain(SECRET);
  expect(result.stderr).not.toContain(SECRET);
}

describe('usage', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await runCli(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('--help lists the commands and the exit codes', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const word of [
      'me',
      'order <externalId>',
      'withdrawal <externalId>',
      'record <externalId>',
      'token',
      'webhook sign',
      'sandbox',
      'Exit codes',
    ]) {
      expect(result.stdout).toContain(word);
    }
  });

  it('the help and docs/cli.md name every record kind, each with its own command', async () => {
    const help = await runCli(['record', '--help']);
    const kinds = /the record's kind: (.+)\n/.exec(help.stdout)?.[1]?.split(', ') ?? [];
    expect(kinds).toEqual(KINDS);
    const global = (await runCli(['--help'])).stdout;
    const docs = await readFile(join(ROOT, 'docs/cli.md'), 'utf8');
    for (const kind of kinds) {
      expect(global).toContain(`${kind} <externalId>`);
      expect(docs).toContain(`\`${kind}\``);
    }
  });

  it.each([
    ['order', '--wait-until'],
    ['withdrawal', '--timeout'],
    ['token', '--show'],
    ['me', '--allow-insecure-http'],
    ['me', 'CHECKOUT_LOG=debug'],
    ['webhook', 'CHECKOUT_WEBHOOK_SECRET'],
    ['sandbox', '--port'],
    ['me', 'GET /auth/me'],
    ['record', `--kind <kind>           the record's kind: ${KINDS.join(', ')}`],
    ['withdrawal', 'GET /withdrawals/by-external-id/{externalId}'],
    ['watch', 'a withdrawal is final when Completed, Cancelled, Failed, Rejected'],
  ])('%s --help describes the command', async (command, word) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(word);
  });

  it.each([
    ['an unknown command', ['frobnicate'], /unknown command "frobnicate"/],
    ['no command', [], /missing command/],
    ['an unknown option', ['me', '--bogus'], /unknown option '--bogus'/],
    ['an option of another command', ['me', '--show'], /--show is not an option of "me"/],
    ['a missing id', ['order'], /missing <externalId>/],
    ['two ids', ['withdrawal', 'a', 'b'], /takes one <externalId>/],
    ['a bad --timeout', ['order', 'o-1', '--wait-until', 'Settled', '--timeout', 'soon'], /--timeout must be a positive duration/],
    ['--interval without --wait-until', ['order', 'o-1', '--interval', '5'], /only applies with --wait-until/],
    ['an empty id', ['order', ''], /missing <externalId>/],
    ['an id that is not a path segment', ['order', '..'], /externalId cannot be/],
    ['a webhook without action', ['webhook'], /missing action/],
    ['record without --kind', ['record', 'o-1'], `missing --kind <kind>: one of ${KINDS.join(', ')}`],
    ['an unknown --kind', ['record', 'o-1', '--kind', 'payout'], `unknown kind "payout": --kind takes one of ${KINDS.join(', ')}`],
    ['an unknown --kind to watch', ['watch', 'o-1', '--kind', 'Order'], `unknown kind "Order": --kind takes one of ${KINDS.join(', ')}`],
    [
      '--withdrawal with another --kind',
      ['watch', 'w-1', '--withdrawal', '--kind', 'order'],
      /--withdrawal and --kind order name two kinds/,
    ],
    ["--kind on a kind's own command", ['order', 'o-1', '--kind', 'order'], /--kind is not an option of "order"/],
    ['a --timeout of zero', ['me', '--timeout', '0'], /--timeout must be a positive duration/],
    ['a --timeout with an unknown unit', ['me', '--timeout', '5h'], /--timeout must be a positive duration/],
    ['a --timeout past what a timer holds', ['me', '--timeout', '2147484s'], /--timeout must be a positive duration/],
  ])('exits 2 with a clear message on %s', async (_what, args, message) => {
    const result = await runCli(args, { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});

describe('credentials', () => {
  it('exits 3 naming what is missing when no credentials are set', async () => {
    const result = await runCli(['me']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/missing credentials: set CHECKOUT_BASE_URL.*CHECKOUT_PARTNER_ID.*CHECKOUT_PARTNER_SECRET/);
    expect(fake.stats.requests).toBe(0);
  });

  it('exits 3 naming only the missing secret', async () => {
    const result = await runCli(['me'], { env: { CHECKOUT_BASE_URL: server.url, CHECKOUT_PARTNER_ID: 'cli-partner' } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('CHECKOUT_PARTNER_SECRET');
    expect(result.stderr).not.toContain('CHECKOUT_PARTNER_ID (');
  });

  it('exits 3 when authentication fails, without echoing the wrong secret', async () => {
    const result = await runCli(['me'], { env: { ...env, CHECKOUT_PARTNER_SECRET: 'wrong-secret-123' } });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/authentication failed: 401/);
    expect(result.stderr + result.stdout).not.toContain('wrong-secret-123');
  });

  it('takes the credentials from flags, which override the environment', async () => {
    const result = await runCli(['me', '--base-url', server.url, '--partner-id', 'cli-partner', '--partner-secret', SECRET], {
      env: { CHECKOUT_PARTNER_SECRET: 'overridden' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Credentials OK for partner cli-partner');
    expectNoSecret(result);
  });

  it('refuses a plain-http base URL off loopback with exit 2 naming --allow-insecure-http, and takes it with the flag', async () => {
    // [::ffff:127.0.0.1] is loopback on the wire, but not one of the hosts the client lets through over plain http
    const mapped = server.url.replace('127.0.0.1', '[::ffff:127.0.0.1]');
    const refused = await runCli(['me'], { env: { ...env, CHECKOUT_BASE_URL: mapped } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/plain http.*clear text/);
    expect(refused.stderr).toContain('--allow-insecure-http');
    expect(refused.stderr).not.toContain('allowInsecureHttp: true');
    expect(fake.stats.requests).toBe(0);
    const allowed = await runCli(['me', '--allow-insecure-http'], { env: { ...env, CHECKOUT_BASE_URL: mapped } });
    expect(allowed.stderr).toBe('');
    expect(allowed.code).toBe(0);
    expectNoSecret(allowed);
  });

  it('CHECKOUT_LOG=debug prints one line per attempt and exchange on stderr, without the secret or the token', async () => {
    const result = await runCli(['token', '--show'], { env: { ...env, CHECKOUT_LOG: 'debug' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^checkout-partner-sdk exchange POST \/auth\/token status=200 /m);
    expect(result.stderr).not.toContain(result.stdout.trim());
    expect(result.stderr).not.toContain(SECRET);
  });

  it('exits 1 when the service cannot be reached', async () => {
    const other = await createFakeCheckout().listen();
    await other.close();
    const result = await runCli(['me'], { env: { ...env, CHECKOUT_BASE_URL: other.url } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/could not reach the service/);
  });
});

describe('me, order, withdrawal', () => {
  it('me prints the partner, --json the body', async () => {
    const human = await runCli(['me'], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`Credentials OK for partner cli-partner at ${server.url}/api/v1/partner-api`);
    expectNoSecret(human);
    const json = await runCli(['me', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ partnerId: 'cli-partner' });
  });

  it('order prints the status fields; --json prints the record as sent', async () => {
    const order = { externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' }, extra: 5 };
    fake.setOrder(order);
    const human = await runCli(['order', 'o-1'], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/settlement\.status:\s+Pending/);
    expect(human.stdout).toMatch(/settlement\.tradeId:\s+t-1/);
    const json = await runCli(['order', 'o-1', '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual(order);
  });

  it('exits 4 for an unknown order or withdrawal', async () => {
    const order = await runCli(['order', 'nope'], { env });
    expect(order.code).toBe(4);
    expect(order.stderr).toMatch(/not found: 404 .*"nope"/);
    expect((await runCli(['withdrawal', 'nope'], { env })).code).toBe(4);
  });

  it('order --wait-until polls until the status is reached', async () => {
    fake.setOrder({ externalId: 'o-2', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    fake.settleOrder('o-2', { afterReads: 2 });
    const result = await runCli(['order', 'o-2', '--wait-until', 'Settled', '--interval', '0.05', '--json'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ settlement: { status: 'Settled', tradeId: null } });
    expect(result.stderr).toContain('order o-2: Pending');
    expect(fake.requests.filter((r) => r.path.endsWith('/o-2'))).toHaveLength(3);
  });

  it('withdrawal --wait-until exits 5 when time runs out, naming the last status', async () => {
    fake.setWithdrawal({ externalId: 'w-1', status: 'Processing' });
    // long enough for a first read by a CLI started on a loaded machine: the message names its status
    const result = await runCli(['withdrawal', 'w-1', '--wait-until', 'Completed', '--timeout', '3', '--interval', '0.05'], { env });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/timed out after 3 s .*"Completed" \(last status: "Processing"\)/);
  });

  it("record --kind reads and waits for any kind, as the kind's own command does", async () => {
    fake.setWithdrawal({ externalId: 'w-3', status: 'Processing', amount: '5.00' });
    fake.settle('withdrawal', 'w-3', { afterReads: 1 });
    const json = await runCli(['record', 'w-3', '--kind', 'withdrawal', '--json'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ externalId: 'w-3', status: 'Processing', amount: '5.00' });
    const waited = await runCli(['record', 'w-3', '--kind', 'withdrawal', '--wait-until', 'completed', '--interval', '0.05'], { env });
    expect(waited.code).toBe(0);
    expect(waited.stdout).toMatch(/status:\s+Completed/);
    const order = await runCli(['record', 'w-3', '--kind', 'order'], { env });
    expect(order.code).toBe(4);
    fake.setOrder({ externalId: 'o-9', settlement: { status: 'Cancelled', tradeId: 't-9' } });
    const final = await runCli(['record', 'o-9', '--kind', 'order', '--wait-until', 'Settled', '--interval', '0.05'], { env });
    expect(final.code).toBe(7);
    expect(final.stderr).toMatch(/order "o-9" reached "Cancelled", a final status/);
  });

  it('withdrawal --wait-until Completed succeeds once the withdrawal completes', async () => {
    fake.setWithdrawal({ externalId: 'w-2', status: 'Processing' });
    fake.completeWithdrawal('w-2', { afterReads: 1 });
    const result = await runCli(['withdrawal', 'w-2', '--wait-until', 'Completed', '--interval', '0.05'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/status:\s+Completed/);
  });
});

describe('token', () => {
  it('shows the expiry but not the token without --show', async () => {
    const result = await runCli(['token'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/expires at \d{4}-\d\d-\d\dT.*\(in \d+ s\)/);
    expect(result.stdout).toContain('pass --show');
    expect(result.stdout + result.stderr).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
    expectNoSecret(result);
    const json = await runCli(['token', '--json'], { env });
    expect(JSON.parse(json.stdout)).not.toHaveProperty('accessToken');
  });

  it('prints a working token alone on stdout with --show', async () => {
    const result = await runCli(['token', '--show'], { env });
    expect(result.code).toBe(0);
    const token = result.stdout.trim();
    expect(token).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    const me = await fetch(`${server.url}/api/v1/partner-api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
  });
});

describe('webhook sign / verify', () => {
  let dir: string;
  let file: string;
  const body = '{"eventId":"e-1","type":"otc.trade.settled","tradeId":"t-1"}';
  const hookSecret = 'whsec-cli-test';
  const expected = `sha256=${createHmac('sha256', hookSecret).update(body).digest('hex')}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'checkout-cli-'));
    file = join(dir, 'event.json');
    await writeFile(file, body);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('signs a body from --file with the secret from the environment', async () => {
    const result = await runCli(['webhook', 'sign', '--file', file], { env: { CHECKOUT_WEBHOOK_SECRET: hookSecret } });
    expect(result).toMatchObject({ code: 0, stdout: `${expected}\n` });
    expect(result.stderr).not.toContain(hookSecret);
  });

  it('signs a body from stdin with --secret', async () => {
    const result = await runCli(['webhook', 'sign', '--secret', hookSecret], { input: body });
    expect(result).toMatchObject({ code: 0, stdout: `${expected}\n` });
  });

  it('verify exits 0 for a valid signature and 6 for a wrong one', async () => {
    const hookEnv = { CHECKOUT_WEBHOOK_SECRET: hookSecret };
    expect((await runCli(['webhook', 'verify', '--file', file, '--signature', expected], { env: hookEnv })).code).toBe(0);
    const bare = expected.slice('sha256='.length);
    expect((await runCli(['webhook', 'verify', '--signature', bare], { env: hookEnv, input: body })).code).toBe(0);
    const bad = await runCli(['webhook', 'verify', '--signature', `sha256=${'0'.repeat(64)}`], { env: hookEnv, input: body });
    expect(bad.code).toBe(6);
    expect(bad.stderr).toMatch(/invalid signature/);
    expect(bad.stdout + bad.stderr).not.toContain(hookSecret);
    const tampered = await runCli(['webhook', 'verify', '--signature', expected], { env: hookEnv, input: `${body} ` });
    expect(tampered.code).toBe(6);
  });

  it('exits 3 without a secret, 2 without --signature or with an unreadable file', async () => {
    expect((await runCli(['webhook', 'sign', '--file', file])).code).toBe(3);
    const noSignature = await runCli(['webhook', 'verify', '--file', file], { env: { CHECKOUT_WEBHOOK_SECRET: hookSecret } });
    expect(noSignature.code).toBe(2);
    expect(noSignature.stderr).toMatch(/missing --signature/);
    const missingFile = await runCli(['webhook', 'sign', '--file', join(dir, 'absent.json')], {
      env: { CHECKOUT_WEBHOOK_SECRET: hookSecret },
    });
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toMatch(/cannot read --file .*ENOENT/);
  });
});
