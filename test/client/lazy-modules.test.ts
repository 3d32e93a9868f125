import { afterEach, describe, expect, it, vi } from 'vitest';

// The client's rarely used parts are modules imported at first use (a bundler makes each a chunk of
// its own). When such an import fails (an app's chunk that cannot be fetched), the call still ends
// in the SDK's typed errors, and nothing the service sent (which may quote a credential) leaks.

const failImport = (path: string) =>
  vi.doMock(path, () => {
    throw new TypeError('Failed to fetch dynamically imported module');
  });

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-request-id': 'r-1' } });

/** A fetch that answers the token exchange, then `answer` for every other request. */
function serviceFetch(answer: (url: string) => Response) {
  const seen: string[] = [];
  const fetch = async (input: RequestInfo | URL) => {
    const url = input instanceof Request ? input.url : String(input);
    seen.push(new URL(url).pathname);
    if (url.endsWith('/auth/token')) return json(200, { accessToken: 'token-abcdef', tokenType: 'Bearer', expiresIn: 3600 });
    return answer(url);
  };
  return { fetch, seen };
}

async function freshSdk() {
  vi.resetModules();
  return import('checkout-partner-sdk');
}

afterEach(() => {
  vi.doUnmock('../../src/client/response-errors.js');
  vi.doUnmock('../../src/client/token-sharing.js');
  vi.doUnmock('../../src/client/raw-call.js');
  vi.doUnmock('../../src/client/wait.js');
  vi.doUnmock('../../src/client/secret-call.js');
  vi.resetModules();
});

describe('a lazy module that cannot be imported', () => {
  it('the errors of an answered call: the same class, without the body or headers', async () => {
    failImport('../../src/client/response-errors.js');
    const { CheckoutClient, NotFoundError, ResponseValidationError } = await freshSdk();
    const { fetch } = serviceFetch((url) =>
      url.includes('/missing') ? json(404, { message: 'no order for token-abcdef' }) : json(200, { externalId: 'another' }),
    );
    const client = new CheckoutClient({
      baseUrl: 'https://checkout.test',
      partnerId: 'p-1',
      partnerSecret: 'secret-1',
      fetch,
      maxRetries: 0,
    });
    const missing = await client.getOrderByExternalId('missing').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    const { status, body, headers, message } = missing as InstanceType<typeof NotFoundError>;
    expect({ status, body, headers: [...headers], message }).toEqual({
      status: 404,
      body: undefined,
      headers: [],
      message: '404 from GET /orders/by-external-id/missing',
    });
    const wrong = await client.getOrderByExternalId('asked').catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(ResponseValidationError);
    expect(JSON.stringify(wrong)).not.toContain('token-abcdef');
  });

  it('the token store part: the client exchanges without the store', async () => {
    failImport('../../src/client/token-sharing.js');
    const { CheckoutClient } = await freshSdk();
    const { fetch, seen } = serviceFetch(() => json(200, { externalId: 'o-1' }));
    const store = { get: vi.fn(), set: vi.fn() };
    const client = new CheckoutClient({
      baseUrl: 'https://checkout.test',
      partnerId: 'p-1',
      partnerSecret: 'secret-1',
      fetch,
      tokenStore: store,
    });
    await expect(client.getOrderByExternalId('o-1')).resolves.toMatchObject({ externalId: 'o-1' });
    expect(seen.filter((path) => path.endsWith('/auth/token'))).toHaveLength(1);
    expect(store.get).not.toHaveBeenCalled();
  });

  it("request()'s checks: a ConnectionError, and nothing is sent", async () => {
    failImport('../../src/client/raw-call.js');
    const { CheckoutClient, ConnectionError } = await freshSdk();
    const { fetch, seen } = serviceFetch(() => json(200, {}));
    const client = new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 'secret-1', fetch });
    const error = await client.request('GET', '/custom').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/^request\(\) failed before any request was sent: its module could not be loaded/);
    expect(seen).toEqual([]);
  });

  it("waitFor()'s polling: a ConnectionError, and nothing is sent", async () => {
    failImport('../../src/client/wait.js');
    const { CheckoutClient, ConnectionError } = await freshSdk();
    const { fetch, seen } = serviceFetch(() => json(200, { externalId: 'o-1' }));
    const client = new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 'secret-1', fetch });
    const error = await client.waitForOrder('o-1', () => true).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/^waitFor\(\) failed before any request was sent: its module could not be loaded/);
    expect(seen).toEqual([]);
  });

  it('a partnerSecret function: the read fails typed, nothing is sent, the next read tries again', async () => {
    failImport('../../src/client/secret-call.js');
    const { CheckoutClient, ConnectionError } = await freshSdk();
    const { fetch, seen } = serviceFetch(() => json(200, { externalId: 'o-1' }));
    const client = new CheckoutClient({
      baseUrl: 'https://checkout.test',
      partnerId: 'p-1',
      partnerSecret: () => 'secret-1',
      fetch,
    });
    const error = await client.getOrderByExternalId('o-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/^The token exchange failed before any request was sent: its module could not be loaded/);
    expect(seen).toEqual([]);
  });
});
