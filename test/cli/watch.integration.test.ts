import { createFakeCheckout, playTimeline } from 'checkout-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from './run-cli.js';

const fake = createFakeCheckout({ partners: [{ partnerId: 'p-cli', partnerSecret: 's-cli' }] });
let close: () => Promise<void>;
let env: Record<string, string>;
beforeAll(async () => {
  const server = await fake.listen();
  close = server.close;
  env = { CHECKOUT_BASE_URL: server.url, CHECKOUT_PARTNER_ID: 'p-cli', CHECKOUT_PARTNER_SECRET: 's-cli' };
});
afterAll(() => close?.());

describe('checkout-partner watch', () => {
  it('prints each status change as it happens and exits 0 once every record is final', { timeout: 30_000 }, async () => {
    fake.setOrder({ externalId: 'order-42', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    fake.setOrder({ externalId: 'order-43', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-43' } });
    const child = startCli(['watch', 'order-42', 'order-43', '--interval', '0.1'], env);
    const result = { code: null as number | null, stdout: '', stderr: '' };
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (result.stderr += chunk));
    const closed = new Promise<void>((resolve) =>
      child.on('close', (code) => {
        result.code = code;
        resolve();
      }),
    );
    // the records change only once the command has printed their first status
    await new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        result.stdout += chunk;
        if ((result.stdout.match(/: Pending\n/g) ?? []).length === 2) resolve();
      });
      void closed.then(resolve);
    });
    playTimeline(fake, [
      { atMs: 500, order: 'order-42', patch: { settlement: { status: 'Processing' } } },
      { atMs: 1_000, order: 'order-42', patch: { settlement: { status: 'Settled' } } },
      { atMs: 1_000, order: 'order-43', patch: { settlement: { status: 'Cancelled' } } },
    ]);
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await closed;
    clearTimeout(timer);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('order order-42'))).toEqual([
      'order order-42: Pending',
      'order order-42: Pending -> Processing',
      'order order-42: Processing -> Settled',
    ]);
    expect(lines.filter((l) => l.startsWith('order order-43'))).toEqual([
      'order order-43: Pending',
      'order order-43: Pending -> Cancelled',
    ]);
  });

  it('exits 5 when --timeout runs out before a final status; --json prints one object per change', { timeout: 30_000 }, async () => {
    fake.setWithdrawal({ externalId: 'w-7', status: 'Processing' });
    // --timeout counts from the start, the first read included: a margin for a loaded machine
    const result = await runCli(['watch', 'w-7', '--withdrawal', '--interval', '0.1', '--timeout', '4', '--json'], {
      env,
      timeoutMs: 25_000,
    });
    expect(result.code).toBe(5);
    const line = JSON.parse(result.stdout.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ kind: 'withdrawal', externalId: 'w-7', status: 'Processing', source: 'poll' });
    // a first change has no previous status: the field is left out, not null ("no status")
    expect(line).not.toHaveProperty('previousStatus');
    expect(result.stderr).toMatch(/timed out after 4 s with w-7 not final yet/);
  });

  it('says once that a record is not created yet, not at every read', { timeout: 30_000 }, async () => {
    const result = await runCli(['watch', 'order-late', '--interval', '0.1', '--timeout', '4.5'], { env, timeoutMs: 25_000 });
    expect(result.code).toBe(5);
    expect(result.stderr.split('\n').filter((line) => line.includes('order-late'))).toEqual([
      'order order-late: not found (yet); still watching',
      expect.stringMatching(/timed out after 4\.5 s with order-late not final yet/),
    ]);
    // nothing from the SDK's default stderr lines: the command's own logger took every entry
    expect(result.stderr).not.toContain('checkout-partner-sdk tracker');
  });

  it('--kind names the kind of the ids, and exits 0 once each is final by its kind', { timeout: 30_000 }, async () => {
    fake.setWithdrawal({ externalId: 'w-8', status: 'Processing' });
    fake.setRecord('withdrawal', { externalId: 'w-9', status: 'Rejected' });
    fake.settle('withdrawal', 'w-8', { afterReads: 2 });
    const result = await runCli(['watch', 'w-8', 'w-9', '--kind', 'withdrawal', '--interval', '0.1', '--timeout', '20'], {
      env,
      timeoutMs: 25_000,
    });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.filter((l) => l.includes('w-8'))).toEqual(['withdrawal w-8: Processing', 'withdrawal w-8: Processing -> Completed']);
    expect(lines.filter((l) => l.includes('w-9'))).toEqual(['withdrawal w-9: Rejected']);
  });

  it('refuses a missing id with a usage error', async () => {
    const result = await runCli(['watch'], { env });
    expect(result.code).toBe(2);
  });
});
