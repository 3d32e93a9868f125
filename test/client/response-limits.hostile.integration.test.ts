import { createGzip } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckoutClient, ResponseTooLargeError, type ResponseTooLargeError as TooLarge } from 'checkout-partner-sdk';
import { startServer, stream, TOKEN_BODY, type RealServer } from './real-server.js';

// A hostile service sending huge, endless or compressed-bomb bodies: the client stops at
// maxResponseBytes (decoded bytes), aborts the request and rejects with ResponseTooLargeError,
// while its memory stays flat (issue 9, item 4). Real server on 127.0.0.1, bodies made on demand.

const MiB = 1024 * 1024;
const chunk = Buffer.alloc(64 * 1024, 'x');
let server: RealServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const client = (url: string, extra: object = {}) =>
  new CheckoutClient({ baseUrl: url, partnerId: 'p', partnerSecret: 's', maxRetries: 0, timeoutMs: 20_000, ...extra });

/** Runs `call` and returns its outcome with the peak RSS growth seen while it ran. */
async function measured(call: () => Promise<unknown>): Promise<{ error: unknown; rssGrowthMB: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    peak = Math.max(peak, process.memoryUsage().rss);
    return { error, rssGrowthMB: (peak - before) / MiB };
  } finally {
    clearInterval(sampler);
  }
}

function expectTooLarge(error: unknown, status: number, limit = MiB): void {
  expect(error).toBeInstanceOf(ResponseTooLargeError);
  expect(error).toMatchObject({ name: 'ResponseTooLargeError', status, limitBytes: limit });
  expect((error as TooLarge).message).toMatch(
    new RegExp(`maxResponseBytes \\(${limit} bytes\\).*raise the client option maxResponseBytes`),
  );
}

describe('response bodies are capped', () => {
  it.each([
    ['undeclared', {}],
    ['declared (refused before it is read)', { 'content-length': String(200 * MiB) }],
  ])('a 200 MB status body, its length %s: ResponseTooLargeError, the connection closed, RSS well under +150 MB', async (_, headers) => {
    let sentBytes = 0;
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.on('close', () => (sentBytes = res.socket?.bytesWritten ?? 0));
      stream(res, chunk, 200 * MiB);
      return true;
    });
    const url = server.url;
    const { error, rssGrowthMB } = await measured(() => client(url).getOrderByExternalId('o-1'));
    expectTooLarge(error, 200);
    expect(rssGrowthMB).toBeLessThan(150);
    expect(await server.unfinishedClosed(2_000)).toBe(0);
    // what the server put into its socket before the client closed it: nowhere near the 200 MB
    expect(sentBytes).toBeLessThan(50 * MiB);
  });

  it('an endless 200 body stops at the limit, long before any timeout', async () => {
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      stream(res, chunk, Infinity);
      return true;
    });
    const url = server.url;
    const started = performance.now();
    const { error, rssGrowthMB } = await measured(() => client(url).getOrderByExternalId('o-1'));
    expectTooLarge(error, 200);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(rssGrowthMB).toBeLessThan(150);
    expect(await server.unfinishedClosed(2_000)).toBe(0);
  });

  it('a custom fetch whose Response holds more than its content-length says is refused all the same', async () => {
    const fetch = async (input: Request | URL | string): Promise<Response> => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const body = url.endsWith('/auth/token') ? TOKEN_BODY : JSON.stringify({ externalId: 'o-1', note: 'x'.repeat(2 * MiB) });
      return new Response(body, { headers: { 'content-type': 'application/json', 'content-length': '40' } });
    };
    const error = await client('https://checkout.test', { fetch })
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expectTooLarge(error, 200);
  });

  it('a custom fetch whose endless body declares 40 bytes is cut off at the limit, not read to its end', async () => {
    let pulled = 0;
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += chunk.byteLength;
          controller.enqueue(new Uint8Array(chunk));
        },
      });
    // a wrapper that dropped content-encoding and kept the length its upstream declared
    const fetch = async (input: Request | URL | string): Promise<Response> => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (url.endsWith('/auth/token')) return new Response(TOKEN_BODY, { headers: { 'content-type': 'application/json' } });
      return new Response(endless(), { headers: { 'content-type': 'application/json', 'content-length': '40' } });
    };
    const { error, rssGrowthMB } = await measured(() => client('https://checkout.test', { fetch }).getOrderByExternalId('o-1'));
    expectTooLarge(error, 200);
    expect(rssGrowthMB).toBeLessThan(150);
    expect(pulled).toBeLessThan(16 * MiB);
  });

  it('a 200 MB token response is refused the same way', async () => {
    server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(TOKEN_BODY.slice(0, -1));
      stream(res, chunk, 200 * MiB);
      return true;
    });
    const url = server.url;
    const { error, rssGrowthMB } = await measured(() => client(url).getAccessToken());
    expectTooLarge(error, 200);
    expect(rssGrowthMB).toBeLessThan(150);
  });

  it('a gzip bomb (300 MB of zeros) is counted on the decoded bytes and stopped', async () => {
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      const gzip = createGzip();
      gzip.pipe(res);
      let sent = 0;
      const zeros = Buffer.alloc(MiB);
      const pump = () => {
        while (sent < 300 * MiB && !res.destroyed) {
          sent += zeros.byteLength;
          if (!gzip.write(zeros)) {
            gzip.once('drain', pump);
            return;
          }
        }
        gzip.end();
      };
      res.on('close', () => gzip.destroy());
      pump();
      return true;
    });
    const url = server.url;
    const { error, rssGrowthMB } = await measured(() => client(url).getOrderByExternalId('o-1'));
    expectTooLarge(error, 200);
    expect(rssGrowthMB).toBeLessThan(150);
  });

  it('error bodies are capped too: a 500 with a 50 MB page', async () => {
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      res.writeHead(500, { 'content-type': 'text/html' });
      stream(res, chunk, 50 * MiB);
      return true;
    });
    const url = server.url;
    const { error, rssGrowthMB } = await measured(() => client(url).getOrderByExternalId('o-1'));
    expectTooLarge(error, 500);
    expect(rssGrowthMB).toBeLessThan(150);
  });

  it('maxResponseBytes sets the limit; a body just under it is read whole', async () => {
    const record = JSON.stringify({ externalId: 'o-1', note: 'x'.repeat(2_000) });
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(record);
      return true;
    });
    const exact = client(server.url, { maxResponseBytes: Buffer.byteLength(record) });
    expect((await exact.getOrderByExternalId('o-1')).externalId).toBe('o-1');
    const error = await client(server.url, { maxResponseBytes: 1_000 })
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expectTooLarge(error, 200, 1_000);
  });

  it('the same with the length declared: at the limit it is read whole, a byte over it is refused', async () => {
    const record = JSON.stringify({ externalId: 'o-1', note: 'é'.repeat(1_000) });
    const bytes = Buffer.byteLength(record);
    server = await startServer((req, res) => {
      if (!req.url?.includes('/orders/')) return;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes) });
      res.end(record);
      return true;
    });
    const exact = await client(server.url, { maxResponseBytes: bytes }).getOrderByExternalId('o-1');
    expect(exact).toMatchObject({ externalId: 'o-1', note: 'é'.repeat(1_000) });
    const error = await client(server.url, { maxResponseBytes: bytes - 1 })
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expectTooLarge(error, 200, bytes - 1);
  });

  it.each([0, -1, 1.5, Number.NaN, '1mb'])('rejects maxResponseBytes %s with a TypeError', (value) => {
    expect(() => client('https://checkout.test', { maxResponseBytes: value })).toThrow(/maxResponseBytes must be a whole number of bytes/);
  });
});
