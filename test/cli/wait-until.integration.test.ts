import { createFakeCheckout, type FakeServer } from 'checkout-partner-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const SECRET = 'wait-secret-5';
const fake = createFakeCheckout({ partners: [{ partnerId: 'wait-partner', partnerSecret: SECRET }] });
let server: FakeServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await fake.listen();
  env = { CHECKOUT_BASE_URL: server.url, CHECKOUT_PARTNER_ID: 'wait-partner', CHECKOUT_PARTNER_SECRET: SECRET };
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  fake.reset();
});

/** How many times the record was read. */
const reads = (id: string) => fake.requests.filter((r) => r.path.endsWith(`/${id}`)).length;
/** Long enough that a wait which does not stop by itself would show as a timeout (exit 5). */
const LONG = ['--timeout', '20s', '--interval', '50ms'];

describe('--wait-until compares without case', () => {
  it('"settled" on a Settled order succeeds at the first read', async () => {
    fake.setOrder({ externalId: 'o-1', settlement: { status: 'Settled', tradeId: 't-1' } });
    const result = await runCli(['order', 'o-1', '--wait-until', 'settled', ...LONG], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/settlement\.status:\s+Settled/);
    expect(reads('o-1')).toBe(1);
  });

  it('"COMPLETED" waits until the withdrawal completes', async () => {
    fake.setWithdrawal({ externalId: 'w-1', status: 'Processing' });
    fake.completeWithdrawal('w-1', { afterReads: 2 });
    const result = await runCli(['withdrawal', 'w-1', '--wait-until', 'COMPLETED', ...LONG], { env });
    expect(result.code).toBe(0);
    expect(reads('w-1')).toBe(3);
  });

  it('an awaited cancellation matches either spelling the service may use', async () => {
    fake.setOrder({ externalId: 'o-2', settlement: { status: 'Canceled', tradeId: 't-2' } });
    const result = await runCli(['order', 'o-2', '--wait-until', 'Cancelled', ...LONG], { env });
    expect(result.code).toBe(0);
  });
});

describe('--wait-until stops at a final status that can never become the awaited one (exit 7)', () => {
  it('Settled awaited on a Cancelled order: exit 7 at the first read, the order printed', async () => {
    fake.setOrder({ externalId: 'o-3', settlement: { status: 'Cancelled', tradeId: 't-3' } });
    const result = await runCli(['order', 'o-3', '--wait-until', 'Settled', ...LONG, '--json'], { env });
    expect(result.code).toBe(7);
    expect(JSON.parse(result.stdout)).toMatchObject({ settlement: { status: 'Cancelled' } });
    expect(result.stderr).toMatch(/order "o-3" reached "Cancelled", a final status: it can never become "Settled"/);
    expect(reads('o-3')).toBe(1);
  });

  it('Completed awaited on a withdrawal that failed, and Pending awaited on a Settled order', async () => {
    fake.setWithdrawal({ externalId: 'w-2', status: 'FAILED' });
    expect((await runCli(['withdrawal', 'w-2', '--wait-until', 'Completed', ...LONG], { env })).code).toBe(7);
    fake.setOrder({ externalId: 'o-4', settlement: { status: 'Settled', tradeId: null } });
    const pending = await runCli(['order', 'o-4', '--wait-until', 'Pending', ...LONG], { env });
    expect(pending.code).toBe(7);
    expect(pending.stderr).toMatch(/warning: "Pending" is not an order status the spec names/);
  });

  it('an unknown awaited value is waited for with a warning, and ends at a final status', async () => {
    fake.setOrder({ externalId: 'o-5', settlement: { status: 'Pending', tradeId: 't-5' } });
    fake.settleOrder('o-5', { afterReads: 2 });
    const result = await runCli(['order', 'o-5', '--wait-until', 'Paid', ...LONG], { env });
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/warning: "Paid" is not an order status/);
    expect(reads('o-5')).toBe(3);
  });

  it('a near-miss of a named status is refused before any request, with the likely spelling', async () => {
    for (const [kind, typo, meant] of [
      ['order', 'Setled', 'Settled'],
      ['withdrawal', 'complete', 'Completed'],
    ] as const) {
      const result = await runCli([kind, 'x-1', '--wait-until', typo], { env });
      expect(result.code, typo).toBe(2);
      expect(result.stderr).toContain(`did you mean ${meant}?`);
    }
    const blank = await runCli(['order', 'x-1', '--wait-until', '  '], { env });
    expect(blank.code).toBe(2);
    expect(fake.stats.requests).toBe(0);
  });
});
