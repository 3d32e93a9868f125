import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs an example with tsx and the Node running the tests, with only `env` (no CHECKOUT_* leaks in), killed after 30 s. */
function runExample(file: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('examples/demo.ts', () => {
  it('walks the whole partner flow against the local fake and exits 0', { timeout: 40_000 }, async () => {
    const result = await runExample('examples/demo.ts');
    expect(result.stderr).not.toContain('DEMO FAILED');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/getMe: partner demo-partner/);
    expect(result.stdout).toMatch(/delivered evt_\w+ 2 times -> 200, 200/);
    expect(result.stdout).toContain('order order-1001: Settled (trade trade-7001); duplicate ignored');
    expect(result.stdout).toMatch(/order order-1002 \(BRZ\): Settled after \d+ polls/);
    expect(result.stdout).toContain('withdrawal withdrawal-3001: Completed');
    expect(result.stdout).toContain('order order-1003: Cancelled');
    expect(result.stdout).toContain('receiver answered 401; nothing handled');
    expect(result.stdout).toContain('All steps behaved as expected.');
    expect(result.stdout).not.toMatch(/eyJ[\w-]+\.[\w-]+\./); // no token printed
  });

  it('only reads when pointed at a service through the environment', { timeout: 40_000 }, async () => {
    const partner = { partnerId: 'env-partner', partnerSecret: 'env-secret-5c1' };
    const fake = createFakeCheckout({ partners: [partner] });
    fake.setOrder({ externalId: 'o-env', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
    fake.setWithdrawal({ externalId: 'w-env', status: 'Completed' });
    const server = await fake.listen();
    try {
      const result = await runExample('examples/demo.ts', {
        CHECKOUT_BASE_URL: server.url,
        CHECKOUT_PARTNER_ID: partner.partnerId,
        CHECKOUT_PARTNER_SECRET: partner.partnerSecret,
        CHECKOUT_DEMO_ORDER_ID: 'o-env',
        CHECKOUT_DEMO_WITHDRAWAL_ID: 'w-env',
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('getMe: OK');
      expect(result.stdout).toContain('order o-env: Settled');
      expect(result.stdout).toContain('withdrawal w-env: Completed');
      expect(result.stdout + result.stderr).not.toContain(partner.partnerSecret);
      expect(fake.requests.every((r) => r.method === 'GET' || r.path.endsWith('/auth/token'))).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('exits non-zero when only part of the configuration is set, or the service refuses it', { timeout: 40_000 }, async () => {
    const partial = await runExample('examples/demo.ts', { CHECKOUT_BASE_URL: 'http://127.0.0.1:9' });
    expect(partial.code).toBe(1);
    expect(partial.stderr).toMatch(/CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET missing/);
    const server = await createFakeCheckout({ partners: [{ partnerId: 'p', partnerSecret: 'right' }] }).listen();
    try {
      const refused = await runExample('examples/demo.ts', {
        CHECKOUT_BASE_URL: server.url,
        CHECKOUT_PARTNER_ID: 'p',
        CHECKOUT_PARTNER_SECRET: 'wrong-one',
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/DEMO FAILED: AuthenticationError/);
      expect(refused.stderr).not.toContain('wrong-one');
    } finally {
      await server.close();
    }
  });
});

describe('examples/client-quickstart.ts', () => {
  it('runs against a local fake when nothing is configured', { timeout: 40_000 }, async () => {
    const result = await runExample('examples/client-quickstart.ts');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('credentials OK');
    expect(result.stdout).toContain('order order-42: Settled');
  });

  it('reads the configured service, reporting a missing order', { timeout: 40_000 }, async () => {
    const fake = createFakeCheckout({ partners: [{ partnerId: 'q', partnerSecret: 'qs' }] });
    const server = await fake.listen();
    try {
      const result = await runExample('examples/client-quickstart.ts', {
        CHECKOUT_BASE_URL: server.url,
        CHECKOUT_PARTNER_ID: 'q',
        CHECKOUT_PARTNER_SECRET: 'qs',
        CHECKOUT_DEMO_ORDER_ID: 'absent',
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('order absent: not found');
    } finally {
      await server.close();
    }
  });
});

describe('examples/tracker-demo.ts', () => {
  it(
    'shows each status change handed over once: polling, webhook, an early event, duplicates and a replay',
    { timeout: 40_000 },
    async () => {
      const result = await runExample('examples/tracker-demo.ts');
      expect(result.stderr).not.toContain('DEMO FAILED');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('onChange: order order-brz Pending -> Settled (poll)');
      expect(result.stdout).toContain('onChange: order order-swap (new) -> Settled (webhook)');
      expect(result.stdout).toContain('onChange: order order-early Pending -> Settled (webhook)');
      expect(result.stdout).toContain('order-swap: still one onChange call');
      expect(result.stdout).toContain('All steps behaved as expected: 5 status changes, each handed over once.');
    },
  );
});
