import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, CheckoutClient, ResponseValidationError } from 'checkout-partner-sdk';
import { startServer, TOKEN_BODY, type RealServer } from './real-server.js';

// Credentials never leave the configured origin, never cross the network in clear text, and the
// token never shows in an error (issue 9, items 1-3). Real servers on 127.0.0.1.

const servers: RealServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const serve = async (handler: Parameters<typeof startServer>[0]) => {
  const server = await startServer(handler);
  servers.push(server);
  return server;
};
const SECRET = 'secret-that-must-stay-home';
const newClient = (baseUrl: string, extra: object = {}) =>
  new CheckoutClient({ baseUrl, partnerId: 'p-1', partnerSecret: SECRET, maxRetries: 0, ...extra });

describe('redirects are never followed', () => {
  it.each([301, 302, 303, 307, 308])(
    'a %i on POST /auth/token rejects with ApiError naming it and its Location; the target gets nothing',
    async (status) => {
      const elsewhere = await serve(() => undefined);
      const service = await serve((req, res) => {
        res.writeHead(status, { location: `${elsewhere.url}/steal` });
        res.end();
        return true;
      });
      const error = await newClient(service.url)
        .getAccessToken()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status });
      expect((error as Error).message).toContain(String(status));
      expect((error as Error).message).toContain(`${elsewhere.url}/steal`);
      expect((error as Error).message).toMatch(/never follows.*baseUrl/);
      expect(elsewhere.requests).toEqual([]);
      expect(service.requests).toHaveLength(1); // a 3xx is not retried
    },
  );

  it('a Location holding credentials or a query shows in neither the message nor inspect(error): only its origin and path', async () => {
    const service = await serve((req, res) => {
      const location = 'https://user:hunter2-pass@login.example/sso/cb?access_token=leaked-tok-9&state=1#frag-secret';
      res.writeHead(302, { location, 'content-type': 'text/html' });
      res.end(`<a href="${location}">Found</a>`);
      return true;
    });
    const error = await newClient(service.url)
      .getAccessToken()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const shown = `${(error as Error).message}\n${inspect(error, { depth: 10 })}\n${JSON.stringify(error)}`;
    expect((error as Error).message).toContain('https://login.example/sso/cb');
    for (const secret of ['hunter2-pass', 'user:', 'leaked-tok-9', 'frag-secret']) expect(shown).not.toContain(secret);
  });

  it('a 3xx without a Location, or with one that is not a URL, still rejects with ApiError', async () => {
    const service = await serve((req, res) => {
      if (req.url?.includes('/orders/')) res.writeHead(307, { location: 'http://[bad' });
      else res.writeHead(301);
      res.end();
      return true;
    });
    await expect(newClient(service.url).getAccessToken()).rejects.toMatchObject({ name: 'ApiError', status: 301 });
  });

  it('a 302 on a status read is not followed to another origin, and its body is not taken as the order', async () => {
    const elsewhere = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ externalId: 'o-1', settlement: { status: 'Settled', tradeId: 't-forged' } }));
      return true;
    });
    const service = await serve((req, res) => {
      if (req.url?.includes('/orders/')) {
        res.writeHead(302, { location: `${elsewhere.url}/order` });
        res.end();
        return true;
      }
    });
    const error = await newClient(service.url)
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 302 });
    expect(elsewhere.requests).toEqual([]);
  });

  it('rejects a response that a custom fetch got by following a redirect', async () => {
    const service = await serve(() => undefined);
    const client = newClient(service.url, {
      fetch: async (input: Request) => {
        const response = await fetch(input);
        Object.defineProperty(response, 'redirected', { value: true });
        return response;
      },
    });
    await expect(client.getAccessToken()).rejects.toThrow(/redirected.*redirect: 'manual'/);
  });
});

describe('plain http', () => {
  it.each(['http://api.example.com', 'http://10.0.0.5:8080', 'http://[2001:db8::1]'])(
    'refuses %s at construction with a TypeError saying what to do',
    (baseUrl) => {
      expect(() => newClient(baseUrl)).toThrow(TypeError);
      expect(() => newClient(baseUrl)).toThrow(/clear text.*https.*allowInsecureHttp: true/);
    },
  );

  it.each(['http://localhost:3000', 'http://127.0.0.1:8080', 'http://127.1.2.3', 'http://[::1]:9000', 'https://api.example.com'])(
    'accepts %s',
    (baseUrl) => {
      expect(() => newClient(baseUrl)).not.toThrow();
    },
  );

  it('accepts a non-loopback http baseUrl with allowInsecureHttp: true', () => {
    expect(newClient('http://10.0.0.5:8080', { allowInsecureHttp: true }).baseUrl).toBe('http://10.0.0.5:8080/api/v1/partner-api');
  });

  it('refuses a non-loopback http CHECKOUT_BASE_URL too, and a non-boolean allowInsecureHttp', () => {
    expect(() => new CheckoutClient({ baseUrl: 'http://api.example.com', partnerId: 'p', partnerSecret: 's' })).toThrow(/clear text/);
    expect(() => newClient('https://api.example.com', { allowInsecureHttp: 'yes' })).toThrow(/allowInsecureHttp must be a boolean/);
  });
});

describe('the token is validated and never appears in an error', () => {
  const hostileToken = (token: string, extra: object = {}) =>
    JSON.stringify({ accessToken: token, tokenType: 'Bearer', expiresIn: 3600, ...extra });

  it.each([
    ['a NUL', 'tok\u0000en-NUL-secret'],
    ['CR LF', 'tok\r\nX-Injected: en-CRLF-secret'],
    ['a bare LF', 'tok\nen-LF-secret'],
    ['a space', 'tok en-SP-secret'],
    ['a non-ASCII character', 'tok\u00e9en-UTF-secret'],
  ])('a token holding %s: ResponseValidationError with the token masked, and it is not cached', async (_, token) => {
    let exchanges = 0;
    const service = await serve((req, res) => {
      if (!req.url?.endsWith('/auth/token')) return;
      exchanges += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(exchanges === 1 ? hostileToken(token) : TOKEN_BODY);
      return true;
    });
    const client = newClient(service.url);
    const error = await client.getOrderByExternalId('o-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]?.path).toEqual(['accessToken']);
    const shown = [
      (error as Error).message,
      (error as Error).stack,
      inspect(error, { depth: Infinity, showHidden: true }),
      JSON.stringify(error),
    ].join('\n');
    const secretPart = token.slice(-10);
    expect(shown).not.toContain(secretPart);
    expect(shown).not.toContain(SECRET);
    // nothing was sent with the bad token, and the next call exchanges again
    expect(service.requests.filter((r) => r.includes('/orders/'))).toEqual([]);
    expect(await client.getAccessToken()).toBe('tok-1');
    expect(exchanges).toBe(2);
  });

  it.each([
    ['tokenType "mac"', { tokenType: 'mac' }, 'tokenType'],
    ['no tokenType', { tokenType: undefined }, 'tokenType'],
    ['expiresIn 1.5', { expiresIn: 1.5 }, 'expiresIn'],
    ['expiresIn 0', { expiresIn: 0 }, 'expiresIn'],
    ['expiresIn "3600"', { expiresIn: '3600' }, 'expiresIn'],
  ])('rejects %s', async (_, extra, field) => {
    const service = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(hostileToken('tok-fine', extra));
      return true;
    });
    const error = await newClient(service.url)
      .getAccessToken()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((i) => i.path[0])).toContain(field);
    expect(inspect(error, { depth: Infinity })).not.toContain('tok-fine');
  });

  it('accepts tokenType "bearer" in any case', async () => {
    const service = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(hostileToken('tok-lower', { tokenType: 'bEaReR' }));
      return true;
    });
    expect(await newClient(service.url).getAccessToken()).toBe('tok-lower');
  });

  it('a fetch or Headers error that quotes a header value is not copied into the error', async () => {
    const service = await serve(() => undefined);
    const client = newClient(service.url, {
      fetch: async (input: Request) => {
        const auth = input.headers.get('authorization') ?? input.headers.get('x-partner-secret') ?? '';
        throw new TypeError(`Headers.append: "${auth}" is an invalid header value`);
      },
    });
    const error = await client.getAccessToken().catch((e: unknown) => e);
    expect((error as Error).name).toBe('ConnectionError');
    const shown = [(error as Error).message, (error as Error).stack, inspect(error, { depth: Infinity, showHidden: true })].join('\n');
    expect(shown).not.toContain(SECRET);
    expect((error as Error).message).toMatch(/failed before any response arrived \(TypeError\)/);
  });
});
