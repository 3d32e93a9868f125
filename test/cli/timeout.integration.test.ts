import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createFakeCheckout, type FakeServer } from 'checkout-partner-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from './run-cli.js';

const SECRET = 'timeout-secret-2';
const creds = { CHECKOUT_PARTNER_ID: 'timeout-partner', CHECKOUT_PARTNER_SECRET: SECRET };

/** A service that accepts connections and never answers: what an unreachable or hung host looks like to the client. */
let silent: Server;
let silentUrl: string;
const sockets = new Set<Socket>();
const fake = createFakeCheckout({ partners: [{ partnerId: 'timeout-partner', partnerSecret: SECRET }] });
let server: FakeServer;

beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  server = await fake.listen();
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  await server.close();
});
afterEach(() => {
  fake.reset();
});

describe('--timeout bounds every command', () => {
  it.each([
    ['me', ['me']],
    ['token', ['token']],
    ['order (one read)', ['order', 'o-1']],
  ])('%s against a service that never answers exits 1 at --timeout, saying how many attempts were made', async (_name, args) => {
    const result = await runCli([...args, '--timeout', '1s'], { env: { ...creds, CHECKOUT_BASE_URL: silentUrl } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no answer in time: .*within its timeoutMs \(1000 ms\) \(1 HTTP attempt\)/);
    expect(result.stderr).toMatch(/--timeout/);
  });

  it('a failed call says how many HTTP attempts the command made (the token exchange included)', async () => {
    fake.setOrder({ externalId: 'o-1', settlement: { status: 'Pending' } });
    fake.failNext(3, 503, { only: 'business' });
    const result = await runCli(['order', 'o-1'], { env: { ...creds, CHECKOUT_BASE_URL: server.url } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/request failed: 503 .*, 4 HTTP attempts\)/);
  });

  it('--wait-until against a service that never answers exits 1 (could not reach), not 5 (timed out)', async () => {
    const result = await runCli(['order', 'o-1', '--wait-until', 'Settled', '--timeout', '1s'], {
      env: { ...creds, CHECKOUT_BASE_URL: silentUrl },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/could not reach the service: no answer within 1 s while waiting for order "o-1" \(1 HTTP attempt\)/);
  });

  it('--wait-until against a closed port exits 1 too', async () => {
    const closed = await createFakeCheckout().listen();
    await closed.close();
    const result = await runCli(['withdrawal', 'w-1', '--wait-until', 'Completed', '--timeout', '5s'], {
      env: { ...creds, CHECKOUT_BASE_URL: closed.url },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/could not reach the service: .*\(\d+ HTTP attempts?\)/);
  });

  it('takes ms, s, m and bare seconds', async () => {
    fake.setOrder({ externalId: 'o-2', settlement: { status: 'Settled' } });
    for (const value of ['9000ms', '10s', '0.5m', '12']) {
      const result = await runCli(['order', 'o-2', '--timeout', value], { env: { ...creds, CHECKOUT_BASE_URL: server.url } });
      expect(result.code, value).toBe(0);
    }
  });

  it('webhook sign --timeout bounds reading a pipe that never closes', async () => {
    const child = startCli(['webhook', 'sign', '--timeout', '500ms'], { CHECKOUT_WEBHOOK_SECRET: 'whsec' });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.write('{"eventId":'); // and never ends
    const [code] = (await once(child, 'close')) as [number];
    expect(code).toBe(1);
    expect(stderr).toMatch(/reading the secret and the body took longer than --timeout \(0\.5 s\)/);
  });

  it('sandbox --timeout stops the sandbox by itself, exit 0', { timeout: 30_000 }, async () => {
    const child = startCli(['sandbox', '--json', '--timeout', '1s']);
    child.stdout.resume();
    child.stderr.resume();
    const [code] = (await once(child, 'close')) as [number];
    expect(code).toBe(0);
  });
});
