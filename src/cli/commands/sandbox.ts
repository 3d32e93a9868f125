import { FakeCheckoutCore } from '../../testing/service.js';
import { toHex } from '../../internal/hex.js';
import { allowOnly, type ParsedArgs } from '../args.js';
import { durationOption } from '../duration.js';
import { escapeText } from '../escape.js';
import { ExitCode, usage, type ExitCodeValue } from '../exit-codes.js';
import type { CliIo } from '../io.js';

export const SANDBOX_PARTNER_ID = 'sandbox-partner';

/** Seeds the demo records (those with `afterReads` advance while a client polls) and returns the banner's lines. */
function seed(fake: FakeCheckoutCore): string[] {
  fake.setOrder({
    externalId: 'demo-order-crypto',
    currency: 'USDT',
    amount: '125.00',
    settlement: { status: 'Pending', tradeId: 'demo-trade-1' },
  });
  fake.settleOrder('demo-order-crypto', { afterReads: 2 });
  fake.setOrder({
    externalId: 'demo-order-settled',
    currency: 'BTC',
    amount: '0.0021',
    settlement: { status: 'Settled', tradeId: 'demo-trade-0' },
  });
  fake.setOrder({ externalId: 'demo-order-brz', currency: 'BRZ', amount: '250.00', settlement: { status: 'Pending', tradeId: null } });
  fake.settleOrder('demo-order-brz', { afterReads: 2 });
  fake.setOrder({
    externalId: 'demo-order-cancelled',
    currency: 'USDT',
    amount: '40.00',
    settlement: { status: 'Cancelled', tradeId: 'demo-trade-2' },
  });
  fake.setWithdrawal({ externalId: 'demo-withdrawal-1', status: 'Processing', amount: '80.00' });
  fake.completeWithdrawal('demo-withdrawal-1', { afterReads: 2 });
  fake.setWithdrawal({ externalId: 'demo-withdrawal-done', status: 'Completed', amount: '15.00' });
  return [
    'order       demo-order-crypto      USDT  Pending, Settled from the 3rd read (trade demo-trade-1)',
    'order       demo-order-settled     BTC   Settled',
    'order       demo-order-brz         BRZ   Pending, Settled from the 3rd read (no trade)',
    'order       demo-order-cancelled   USDT  Cancelled',
    'withdrawal  demo-withdrawal-1            Processing, Completed from the 3rd read',
    'withdrawal  demo-withdrawal-done         Completed',
  ];
}

/** `sandbox`: the fake service on 127.0.0.1 with demo data, until SIGINT/SIGTERM. */
export async function sandboxCommand({ positionals, options }: ParsedArgs, io: CliIo): Promise<ExitCodeValue> {
  allowOnly('sandbox', options, ['port', 'json', 'timeout']);
  if (positionals.length > 1) throw usage(`"sandbox" takes no arguments, got "${positionals[1]}"`, 'sandbox');
  // --timeout: how long the sandbox runs (for CI scripts); by default until a signal
  const runMs = options.timeout === undefined ? undefined : durationOption('sandbox', 'timeout', options.timeout, 0);
  const port = options.port === undefined ? 0 : Number(options.port);
  if (!/^\d+$/.test(options.port ?? '0') || !Number.isInteger(port) || port > 65_535) {
    throw usage(`--port must be a whole number from 0 to 65535, got "${options.port}"`, 'sandbox');
  }
  // A fresh secret per run: the sandbox is local, but nothing should learn to rely on a fixed one.
  const partnerSecret = `sandbox-${toHex(crypto.getRandomValues(new Uint8Array(12)))}`;
  const fake = new FakeCheckoutCore({
    partners: [{ partnerId: SANDBOX_PARTNER_ID, partnerSecret }],
    maxLoggedRequests: 0,
    onRequest: (r) =>
      io.err(`${new Date(r.at).toISOString()}  ${escapeText(r.method)} ${escapeText(r.path)} -> ${r.status || 'dropped'}\n`),
  });
  const seeded = seed(fake);
  let server;
  try {
    server = await fake.listen({ port, host: '127.0.0.1' });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw usage(`cannot listen on 127.0.0.1:${port}: ${typeof code === 'string' ? code : String(error)}`, 'sandbox');
  }

  if (options.json) {
    io.out(
      `${JSON.stringify({
        url: server.url,
        partnerId: SANDBOX_PARTNER_ID,
        partnerSecret,
        orders: ['demo-order-crypto', 'demo-order-settled', 'demo-order-brz', 'demo-order-cancelled'],
        withdrawals: ['demo-withdrawal-1', 'demo-withdrawal-done'],
      })}\n`,
    );
  } else {
    io.out(
      [
        `Fake checkout service running at ${server.url} (Ctrl-C to stop)`,
        '',
        'Export these to point the SDK and the CLI at it:',
        '',
        `  export CHECKOUT_BASE_URL=${server.url}`,
        `  export CHECKOUT_PARTNER_ID=${SANDBOX_PARTNER_ID}`,
        `  export CHECKOUT_PARTNER_SECRET=${partnerSecret}`,
        '',
        'Seeded records:',
        ...seeded.map((line) => `  ${line}`),
        '',
        'Then try:',
        '  checkout-partner me',
        '  checkout-partner order demo-order-crypto --wait-until Settled --interval 1',
        '  checkout-partner withdrawal demo-withdrawal-1 --wait-until Completed --interval 1',
        '',
      ].join('\n'),
    );
  }

  await new Promise<void>((resolve) => {
    const timer = runMs === undefined ? undefined : setTimeout(resolve, runMs);
    if (io.signal.aborted) resolve();
    else
      io.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
  });
  await server.close();
  io.err('sandbox stopped\n');
  return ExitCode.Ok;
}
