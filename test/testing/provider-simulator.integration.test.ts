import { setMaxListeners } from 'node:events';
import { createServer } from 'node:http';
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

/** A receiver on 127.0.0.1 answering `status` to every POST and counting them; `close()` takes it down. */
async function receiver(status = 200) {
  const got: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      got.push(body);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

const events = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ eventId: `e-${from + i}`, type: 'otc.trade.settled', tradeId: `t-${from + i}` }));
const FLEET_DELIVERY = { maxAttempts: 4, retryDelayMs: 10 };

describe('createProviderSimulator delivering to a fleet', () => {
  it('spreads the deliveries over the receivers in turn and passes one that is down over: none fails', async () => {
    const [a, b] = [await receiver(), await receiver()];
    const provider = createProviderSimulator({ url: [a.url, await downUrl(), b.url], secret: 'whsec', delivery: FLEET_DELIVERY });
    for (const event of events(0, 30)) provider.send(event);
    expect(await provider.settled()).toMatchObject({ sent: 30, deliveries: 30, failed: 0 });
    expect(a.got.length + b.got.length).toBe(30);
    expect(a.got.length).toBeGreaterThanOrEqual(10);
    expect(b.got.length).toBeGreaterThanOrEqual(10);
    await Promise.all([a.close(), b.close()]);
  });

  it('a receiver that dies is passed over, and one that answers 503 has the retry go to the next', async () => {
    const [a, b, failing] = [await receiver(), await receiver(), await receiver(503)];
    const provider = createProviderSimulator({ url: [a.url, b.url, failing.url], secret: 'whsec', delivery: FLEET_DELIVERY });
    for (const event of events(0, 9)) provider.send(event);
    await provider.settled();
    await b.close();
    const before = a.got.length;
    for (const event of events(9, 9)) provider.send(event);
    expect(await provider.settled()).toMatchObject({ sent: 18, deliveries: 18, failed: 0 });
    // every delivery reached a receiver that answers 2xx: after b died, a alone
    expect(a.got.length - before).toBe(9);
    expect(new Set([...a.got, ...b.got]).size).toBe(18);
    expect(failing.got.length).toBeGreaterThan(0);
    await Promise.all([a.close(), failing.close()]);
  });

  it('sends every attempt through delivery.fetch (a load balancer of yours), to the URLs given', async () => {
    const seen: string[] = [];
    const provider = createProviderSimulator({
      url: ['http://127.0.0.1:1/webhooks', 'http://127.0.0.1:2/webhooks'],
      secret: 'whsec',
      delivery: {
        fetch: async (request) => {
          seen.push(`${new URL(request.url).port} ${request.headers.has('x-provider-signature')} ${(await request.text()).length > 0}`);
          return new Response(null, { status: 204 });
        },
      },
    });
    for (const event of events(0, 4)) provider.send(event);
    expect(await provider.settled()).toMatchObject({ deliveries: 4, failed: 0 });
    // deliveries start at the receivers in turn (signing may reorder when each one calls fetch)
    expect(seen.sort()).toEqual(['1 true true', '1 true true', '2 true true', '2 true true']);
  });

  it('refuses a url that is not an http(s) URL or a non-empty array of them', () => {
    for (const url of [[], ['ftp://127.0.0.1/x'], ['http://127.0.0.1/ok', ''], 'not a url', 42]) {
      expect(() => createProviderSimulator({ url: url as string[], secret: 'whsec' })).toThrow(TypeError);
    }
  });
});
