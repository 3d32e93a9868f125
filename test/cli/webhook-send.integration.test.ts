import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createFakeCheckout, type FakeServer } from 'checkout-partner-sdk/testing';
import { createWebhookHandler, type WebhookEvent } from 'checkout-partner-sdk/webhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const HOOK_SECRET = 'whsec-send-test-4';
const fake = createFakeCheckout({ partners: [{ partnerId: 'send-partner', partnerSecret: 'send-secret' }] });
let checkout: FakeServer;
let receiver: Server;
let receiverUrl: string;
let dir: string;
let secretFile: string;
/** What the partner's receiver handed to onEvent. */
const received: { event: WebhookEvent; confirmed: boolean }[] = [];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  checkout = await fake.listen();
  const client = new CheckoutClient({ baseUrl: checkout.url, partnerId: 'send-partner', partnerSecret: 'send-secret' });
  // the partner's own receiver, built as the README says
  const handler = createWebhookHandler({
    secret: HOOK_SECRET,
    client,
    resolveOrderExternalId: () => 'o-1',
    confirm: { attempts: 1, delayMs: 0 },
    onEvent: ({ event, confirmed }) => {
      received.push({ event, confirmed });
    },
  });
  receiver = createServer((request, response) => handler.node(request, response));
  receiverUrl = `${await listen(receiver)}/webhooks`;
  dir = await mkdtemp(join(tmpdir(), 'checkout-cli-send-'));
  secretFile = join(dir, 'whsec');
  await writeFile(secretFile, `${HOOK_SECRET}\n`);
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await checkout.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  received.length = 0;
  fake.reset();
});

describe('webhook send', () => {
  it('delivers a signed event that a createWebhookHandler receiver verifies and confirms', async () => {
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
    const result = await runCli([
      'webhook',
      'send',
      '--to',
      receiverUrl,
      '--secret-file',
      secretFile,
      '--type',
      'otc.trade.settled',
      '--event-id',
      'e-send-1',
      '--trade-id',
      't-1',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`delivered event e-send-1 (otc.trade.settled) to ${receiverUrl}: 200 after 1 HTTP attempt\n`);
    expect(result.stderr).toBe('');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ event: { eventId: 'e-send-1', type: 'otc.trade.settled', tradeId: 't-1' }, confirmed: true });
  });

  it('sends --body-file byte for byte (a trailing newline included) and --json reports the delivery', async () => {
    const body = '{\n  "eventId": "e-file-1",\n  "type": "pix.withdrawal.settled"\n}\n';
    const bodyFile = join(dir, 'event.json');
    await writeFile(bodyFile, body);
    const result = await runCli(['webhook', 'send', '--to', receiverUrl, '--body-file', bodyFile, '--json'], {
      env: { CHECKOUT_WEBHOOK_SECRET: HOOK_SECRET },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      eventId: 'e-file-1',
      type: 'pix.withdrawal.settled',
      status: 200,
      attempts: [{ status: 200 }],
    });
    expect(received.map((r) => r.event.eventId)).toEqual(['e-file-1']);
  });

  it("takes a 401 (a wrong secret) as the receiver's final word: one request, exit 1", async () => {
    const wrong = join(dir, 'wrong');
    await writeFile(wrong, 'not-the-secret');
    const result = await runCli(['webhook', 'send', '--to', receiverUrl, '--secret-file', wrong, '--trade-id', 't-1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^attempt 1: 401/m);
    expect(result.stderr).not.toMatch(/^attempt 2:/m);
    expect(result.stderr).toMatch(
      /the receiver refused the event with status 401 \(a 4xx other than 408, 409 and 429 is final: not retried\)/,
    );
    expect(received).toHaveLength(0);
  });

  it('retries like the provider a 503, a 429 and a 408, and stops at a 400', async () => {
    const answers = [503, 429, 408, 400, 200];
    let served = 0;
    const flaky = createServer((_request, response) => {
      response.writeHead(answers[served++] ?? 200).end('no');
    });
    const url = await listen(flaky);
    try {
      const result = await runCli(['webhook', 'send', '--to', url, '--secret-file', secretFile]);
      expect(result.code).toBe(1);
      expect(served).toBe(4);
      expect(result.stderr).toMatch(/^attempt 1: 503 no\nattempt 2: 429 no\nattempt 3: 408 no\nattempt 4: 400 no\n/m);
      expect(result.stderr).toMatch(/refused the event with status 400/);
    } finally {
      flaky.closeAllConnections();
      await new Promise((resolve) => flaky.close(resolve));
    }
  });

  it('--timeout bounds the whole delivery against a receiver that never answers', async () => {
    const silent = createServer(() => {});
    const url = await listen(silent);
    try {
      const result = await runCli(['webhook', 'send', '--to', url, '--secret-file', secretFile, '--timeout', '1s']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/did not accept the event within --timeout \(1 s\): 1 HTTP attempt \(last: no response\)/);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('refuses plain http off loopback without --allow-insecure-http, and bad combinations, before sending', async () => {
    // [::ffff:127.0.0.1] is loopback on the wire, but not a host the CLI lets through over plain http
    const mapped = receiverUrl.replace('127.0.0.1', '[::ffff:127.0.0.1]');
    const refused = await runCli(['webhook', 'send', '--to', mapped, '--secret-file', secretFile]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/plain http .*clear text\n.*--allow-insecure-http/);
    const both = await runCli([
      'webhook',
      'send',
      '--to',
      receiverUrl,
      '--secret-file',
      secretFile,
      '--body-file',
      secretFile,
      '--type',
      'x',
    ]);
    expect(both.code).toBe(2);
    expect((await runCli(['webhook', 'send', '--secret-file', secretFile])).code).toBe(2);
    expect((await runCli(['webhook', 'send', '--to', 'ftp://127.0.0.1/x', '--secret-file', secretFile])).code).toBe(2);
    expect((await runCli(['webhook', 'send', '--to', receiverUrl])).code).toBe(3);
    expect(received).toHaveLength(0);
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
    const allowed = await runCli(['webhook', 'send', '--to', mapped, '--secret-file', secretFile, '--allow-insecure-http']);
    expect(allowed.code).toBe(0);
  });
});

describe('webhook sign --curl', () => {
  it('prints a curl line with --data-binary @file that the receiver accepts, newlines in the body and all', async () => {
    const body = '{\n  "eventId": "e-curl-1",\n  "type": "pix.withdrawal.settled"\n}\n';
    const bodyFile = join(dir, "it's event.json");
    await writeFile(bodyFile, body);
    const result = await runCli(['webhook', 'sign', '--file', bodyFile, '--secret-file', secretFile, '--curl', receiverUrl]);
    expect(result.code).toBe(0);
    const line = result.stdout.trim();
    expect(line).toContain('--data-binary');
    expect(line).not.toMatch(/ -d /);
    // async: the receiver runs in this process, so a synchronous spawn would block its answer
    const curl = await promisify(execFile)('sh', ['-c', `${line} -o /dev/null -w '%{http_code}'`], {
      encoding: 'utf8',
      timeout: 15_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(curl.stdout).toBe('200');
    expect(received.map((r) => r.event.eventId)).toEqual(['e-curl-1']);
    // why not -d: it strips the newlines, so the bytes sent are not the bytes signed
    const stripped = await promisify(execFile)('sh', ['-c', `${line.replace('--data-binary', '-d')} -o /dev/null -w '%{http_code}'`], {
      encoding: 'utf8',
      timeout: 15_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(stripped.stdout).toBe('401');
  });
});
