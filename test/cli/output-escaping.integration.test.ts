import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeCheckout, type FakeServer } from 'checkout-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// What a terminal obeys instead of showing: C0 but the CLI's own LF, DEL, C1, and the line separators.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202e]/;

const SECRET = 'escaping-secret-1';
const fake = createFakeCheckout({ partners: [{ partnerId: 'esc-partner', partnerSecret: SECRET }] });
let server: FakeServer;
let env: Record<string, string>;

/** A hostile order: ESC[2J clears the screen; CR LF and a copy of the CLI's own line forge a Settled status. */
const hostile = {
  externalId: 'o-hostile',
  currency: '\u001b[2J\u001b[HUSDT',
  settlement: { status: 'Pending\r\nsettlement.status:   Settled', tradeId: 't-\u0007-\u009b31m' },
  note: 'line\u2028separator \u202eesrever',
  'key\u001b[31m': 'red key',
};

beforeAll(async () => {
  server = await fake.listen();
  env = { CHECKOUT_BASE_URL: server.url, CHECKOUT_PARTNER_ID: 'esc-partner', CHECKOUT_PARTNER_SECRET: SECRET };
  fake.setOrder(hostile);
});
afterAll(async () => {
  await server.close();
});

describe('control characters from the service are shown escaped', () => {
  it('order: a screen-clearing field and a forged "Settled" line stay on their own line, escaped', async () => {
    const result = await runCli(['order', 'o-hostile'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stdout).toContain('currency:');
    expect(result.stdout).toContain('\\x1b[2J\\x1b[HUSDT');
    expect(result.stdout).toContain('Pending\\x0d\\x0asettlement.status:   Settled');
    expect(result.stdout).toContain('t-\\x07-\\u009b31m');
    expect(result.stdout).toContain('line\\u2028separator \\u202eesrever');
    expect(result.stdout).toContain('key\\x1b[31m:');
    // one line per field: nothing the service sent started a line of its own
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(6);
    expect(result.stdout).not.toMatch(/^settlement\.status:\s+Settled$/m);
  });

  it('--wait-until progress lines on stderr are escaped too', async () => {
    const result = await runCli(['order', 'o-hostile', '--wait-until', 'Settled', '--timeout', '1500ms', '--interval', '100ms'], { env });
    expect(result.code).toBe(5);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr).toContain('order o-hostile: Pending\\x0d\\x0asettlement.status:   Settled');
    expect(result.stderr).toContain('(last status: "Pending\\x0d\\x0asettlement.status:   Settled")');
  });

  it('--json stays valid JSON with the very same strings, and carries no raw C1 or line separator', async () => {
    const result = await runCli(['order', 'o-hostile', '--json'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stdout).toContain('\\u009b');
    expect(result.stdout).toContain('\\u2028');
    expect(JSON.parse(result.stdout)).toEqual(hostile);
  });

  it('what the user typed is escaped in messages (an id, a command, an option value)', async () => {
    const notFound = await runCli(['order', 'nope\u001b[2J\nforged'], { env });
    expect(notFound.code).toBe(4);
    expect(notFound.stderr).not.toMatch(RAW_CONTROL);
    expect(notFound.stderr).toContain('nope');
    const command = await runCli(['fr\u001b]0;title\u0007ob']);
    expect(command.code).toBe(2);
    expect(command.stderr).not.toMatch(RAW_CONTROL);
    expect(command.stderr).toContain('unknown command "fr\\x1b]0;title\\x07ob"');
    const timeout = await runCli(['me', '--timeout', '1\u009b2J'], { env });
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain('"1\\u009b2J"');
  });
});

describe('control characters in a service error are shown escaped', () => {
  let hostileServer: Server;
  let url: string;

  beforeAll(async () => {
    // a service whose error body and request id carry terminal sequences (C1 bytes are legal in a header)
    hostileServer = createServer((request, response) => {
      if (request.url?.endsWith('/auth/token')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ accessToken: 'opaque-token', tokenType: 'Bearer', expiresIn: 3600 }));
        return;
      }
      response.writeHead(409, { 'content-type': 'application/json', 'x-request-id': 'req-\u009b2J-1' });
      response.end(JSON.stringify({ message: '\u001b]0;pwned\u0007conflict\r\ncheckout-partner: order Settled' }));
    });
    await new Promise<void>((resolve) => hostileServer.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(hostileServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => hostileServer.close(resolve));
  });

  it('the error message and the request id cannot retitle the terminal nor forge a line', async () => {
    const result = await runCli(['order', 'o-1'], { env: { ...env, CHECKOUT_BASE_URL: url } });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr).toMatch(/: \\(?:x1b|u001b)\]0;pwned\\(?:x07|u0007)conflict.*checkout-partner: order Settled/); // the SDK escapes a service's text as \u001b, the CLI as \x1b: either way, escaped
    expect(result.stderr).toContain('request id req-\\u009b2J-1');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
