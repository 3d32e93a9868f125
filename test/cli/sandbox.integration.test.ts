import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from './run-cli.js';

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts the sandbox and resolves with its output once `ready` matches it (bounded by the test timeout). */
async function startSandbox(args: string[], ready: RegExp) {
  const child = startCli(['sandbox', ...args]);
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (ready.test(stdout)) resolve();
    });
    child.on('close', (code) => reject(new Error(`the sandbox exited (${code}) before it was ready: ${stderr}`)));
  });
  return { child, stdout: () => stdout, stderr: () => stderr };
}

describe('checkout-partner sandbox', () => {
  it('serves demo data the other commands can use, and stops cleanly on SIGTERM', { timeout: 60_000 }, async () => {
    const sandbox = await startSandbox(['--json'], /\n/);
    const info = JSON.parse(sandbox.stdout()) as {
      url: string;
      partnerId: string;
      partnerSecret: string;
      orders: string[];
      withdrawals: string[];
    };
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const env = { CHECKOUT_BASE_URL: info.url, CHECKOUT_PARTNER_ID: info.partnerId, CHECKOUT_PARTNER_SECRET: info.partnerSecret };

    const me = await runCli(['me'], { env });
    expect(me.code).toBe(0);
    expect(me.stdout).not.toContain(info.partnerSecret);
    const order = await runCli(['order', info.orders[0]!, '--wait-until', 'Settled', '--interval', '0.05', '--json'], { env });
    expect(order.code).toBe(0);
    expect(JSON.parse(order.stdout)).toMatchObject({ externalId: 'demo-order-crypto', settlement: { status: 'Settled' } });
    const withdrawal = await runCli(['withdrawal', 'demo-withdrawal-done'], { env });
    expect(withdrawal.stdout).toMatch(/status:\s+Completed/);
    expect(sandbox.stderr()).toMatch(/GET \/api\/v1\/partner-api\/auth\/me -> 200/);

    sandbox.child.kill('SIGTERM');
    const [code] = await once(sandbox.child, 'close');
    expect(code).toBe(0);
    expect((await runCli(['me'], { env })).code).toBe(1); // it is gone
  });

  it('prints the base URL and the credentials to export, and stops on SIGINT', { timeout: 30_000 }, async () => {
    const sandbox = await startSandbox([], /Then try:/);
    const out = sandbox.stdout();
    expect(out).toMatch(/export CHECKOUT_BASE_URL=http:\/\/127\.0\.0\.1:\d+\n/);
    expect(out).toContain('export CHECKOUT_PARTNER_ID=sandbox-partner');
    expect(out).toMatch(/export CHECKOUT_PARTNER_SECRET=sandbox-[0-9a-f]{24}\n/);
    expect(out).toContain('demo-withdrawal-1');
    sandbox.child.kill('SIGINT');
    const [code] = await once(sandbox.child, 'close');
    expect(code).toBe(0);
  });

  it('exits 2 for a bad --port and when the port is taken', { timeout: 30_000 }, async () => {
    expect((await runCli(['sandbox', '--port', 'abc'])).code).toBe(2);
    const taken = await createFakeCheckout().listen();
    try {
      const result = await runCli(['sandbox', '--port', String(taken.port)]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/EADDRINUSE/);
    } finally {
      await taken.close();
    }
  });
});
