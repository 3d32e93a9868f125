import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckoutClient, ConnectionError, TimeoutError } from 'checkout-partner-sdk';

// A real loopback server: the transport itself (sockets, resets, slow bodies) is under test here.
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(onOrder: (attempt: number, res: import('node:http').ServerResponse) => void): Promise<string> {
  let attempt = 0;
  server = createServer((req, res) => {
    if (req.url?.endsWith('/auth/token')) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ accessToken: 'tok-1', tokenType: 'Bearer', expiresIn: 3600 }));
      return;
    }
    attempt += 1;
    onOrder(attempt, res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const client = (baseUrl: string, extra: object = {}) => new CheckoutClient({ baseUrl, partnerId: 'p', partnerSecret: 's', ...extra });

describe('over a real socket', () => {
  it('retries a GET after a connection reset and succeeds', async () => {
    const url = await serve((attempt, res) => {
      if (attempt === 1) {
        res.socket?.destroy();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ externalId: 'o-1' }));
    });
    expect(await client(url).getOrderByExternalId('o-1')).toEqual({ externalId: 'o-1' });
  });

  it('rejects with ConnectionError after the retries when every attempt is reset', async () => {
    let attempts = 0;
    const url = await serve((_, res) => {
      attempts += 1;
      res.socket?.destroy();
    });
    const error = await client(url)
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ name: 'ConnectionError', status: undefined });
    expect(attempts).toBe(3);
  });

  it('rejects with ConnectionError when nothing listens', async () => {
    const url = await serve(() => undefined);
    server?.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const error = await client(url, { maxRetries: 0 })
      .getAccessToken()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/ECONNREFUSED|fetch failed/);
  });

  it('times out a response whose body stalls after the headers', async () => {
    const url = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"externalId":'); // and never the rest
    });
    const error = await client(url, { timeoutMs: 150, maxRetries: 0 })
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toMatch(/timed out: no complete response \(headers and body\) within timeoutMs \(150 ms\)/);
  });

  it('times out an attempt whose response never comes', async () => {
    const url = await serve(() => undefined);
    await expect(client(url, { timeoutMs: 100, maxRetries: 0 }).getOrderByExternalId('o-1')).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe('the global fetch', () => {
  it('is called as a method of globalThis, as browsers and Workers require', async () => {
    const real = globalThis.fetch;
    const strict = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      if (this !== globalThis) return Promise.reject(new TypeError('Illegal invocation'));
      return real(input, init);
    };
    const url = await serve((_, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ externalId: 'o-1' }));
    });
    globalThis.fetch = strict;
    try {
      expect(await client(url).getOrderByExternalId('o-1')).toEqual({ externalId: 'o-1' });
    } finally {
      globalThis.fetch = real;
    }
  });
});
