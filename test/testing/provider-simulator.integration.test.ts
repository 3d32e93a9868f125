import { setMaxListeners } from 'node:events';
import net from 'node:net';
import { createProviderSimulator } from 'checkout-partner-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';

// A receiver that is down (its port closed): every delivery fails and waits to retry at once.
async function downUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/webhooks`;
}

const NativeAbortController = globalThis.AbortController;
afterEach(() => {
  globalThis.AbortController = NativeAbortController;
});

describe('createProviderSimulator against a receiver that is down', () => {
  it('retries many deliveries at once without a MaxListenersExceededWarning', async () => {
    // older Node releases (and polyfilled signals) warn past 10 abort listeners on one signal; the
    // Node running this test may not, so its controllers get that limit back
    globalThis.AbortController = class extends NativeAbortController {
      constructor() {
        super();
        setMaxListeners(10, this.signal);
      }
    };
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const provider = createProviderSimulator({ url: await downUrl(), secret: 'whsec', delivery: { maxAttempts: 3, retryDelayMs: 20 } });
      for (let i = 0; i < 30; i += 1) provider.send({ eventId: `e-${i}`, type: 'otc.trade.settled', tradeId: `t-${i}` });
      const stats = await provider.settled();
      expect(stats).toMatchObject({ sent: 30, deliveries: 30, failed: 30 });
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('stop() still cancels every delivery waiting to retry', async () => {
    const provider = createProviderSimulator({
      url: await downUrl(),
      secret: 'whsec',
      delivery: { maxAttempts: 8, retryDelayMs: 60_000, maxRetryDelayMs: 60_000 },
    });
    for (let i = 0; i < 12; i += 1) provider.send({ eventId: `e-${i}`, type: 'otc.trade.settled', tradeId: `t-${i}` });
    // every delivery has failed its first attempt and waits a minute for its second
    const started = Date.now();
    for (let round = 0; round < 200 && provider.stats.deliveries < 12; round += 1) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));
    provider.stop();
    const stats = await provider.settled();
    expect(stats).toMatchObject({ deliveries: 12, failed: 12 });
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
