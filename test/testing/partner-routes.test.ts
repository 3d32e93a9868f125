// A partner route defined wrongly fails where it is defined, with a TypeError naming what is wrong.
import { createFakeCheckout, defineFakeRoute, type FakeRoute } from 'checkout-partner-sdk/testing';
import { describe, expect, it } from 'vitest';

const ok = () => ({ body: {} });

describe('partner route definitions', () => {
  it.each([
    ['routes not an array', { routes: {} }, /^routes must be an array of \{ method, path, handler \}, got object$/],
    ['a route not an object', { routes: ['POST /x'] }, /^routes\[0\] must be an object \{ method, path, handler \}, got string$/],
    [
      'an unknown method',
      { routes: [{ method: 'FETCH', path: '/x', handler: ok }] },
      /^routes\[0\]\.method must be one of GET, POST, PUT, PATCH, DELETE, got "FETCH"$/,
    ],
    ['no path', { routes: [{ method: 'POST', handler: ok }] }, /^routes\[0\]\.path must be a string starting with "\/"/],
    [
      'a path without the leading slash',
      { routes: [{ method: 'POST', path: 'checkouts', handler: ok }] },
      /routes\[0\]\.path must be a string starting with "\/".*got "checkouts"/,
    ],
    [
      'the API base in the path',
      { routes: [{ method: 'POST', path: '/api/v1/partner-api/checkouts', handler: ok }] },
      /must be below the API base.*drop the "\/api\/v1\/partner-api" prefix/,
    ],
    ['a query in the path', { routes: [{ method: 'GET', path: '/checkouts?id=1', handler: ok }] }, /must not contain a query or fragment/],
    ['an empty segment', { routes: [{ method: 'POST', path: '/orders//payment', handler: ok }] }, /has an empty segment \(segment 2\)/],
    ['a trailing slash', { routes: [{ method: 'POST', path: '/checkouts/', handler: ok }] }, /has an empty segment \(segment 2\)/],
    ['the base itself', { routes: [{ method: 'POST', path: '/', handler: ok }] }, /must name an endpoint/],
    [
      'a bad parameter name',
      { routes: [{ method: 'POST', path: '/orders/:order-id/payment', handler: ok }] },
      /parameter ":order-id" must be ":" and a name/,
    ],
    ['a parameter twice', { routes: [{ method: 'POST', path: '/a/:id/b/:id', handler: ok }] }, /parameter ":id" appears twice/],
    ['a wildcard', { routes: [{ method: 'GET', path: '/files/*', handler: ok }] }, /wildcards are not supported/],
    ['a dot segment', { routes: [{ method: 'GET', path: '/a/../auth/me', handler: ok }] }, /a "\.\." segment is not allowed/],
    ['a space in a segment', { routes: [{ method: 'GET', path: '/check outs', handler: ok }] }, /segment "check outs" may only hold/],
    [
      'the fake’s token exchange',
      { routes: [{ method: 'POST', path: '/auth/token', handler: ok }] },
      /is the fake's own endpoint \(POST \/auth\/token\)/,
    ],
    [
      'the fake’s order read',
      { routes: [{ method: 'PUT', path: '/orders/by-external-id/:id', handler: ok }] },
      /is the fake's own endpoint \(GET \/orders\/by-external-id\/\{externalId\}\)/,
    ],
    ['no handler', { routes: [{ method: 'POST', path: '/x' }] }, /^routes\[0\]\.handler must be a function, got undefined$/],
    ['an unknown key', { routes: [{ method: 'POST', path: '/x', handle: ok }] }, /^routes\[0\]: unknown option "handle"/],
    [
      'the same route twice (other parameter names)',
      {
        routes: [
          { method: 'POST', path: '/orders/:a/pay', handler: ok },
          { method: 'post', path: '/orders/:b/pay', handler: ok },
        ],
      },
      /^routes\[1\]: POST "\/orders\/:b\/pay" is already a route \(POST "\/orders\/:a\/pay" answers the same paths\)$/,
    ],
  ])('createFakeCheckout refuses %s', (_what, options, message) => {
    expect(() => createFakeCheckout(options as never)).toThrow(TypeError);
    expect(() => createFakeCheckout(options as never)).toThrow(message);
  });

  it('fake.route() and defineFakeRoute check the same, naming their call', () => {
    const fake = createFakeCheckout({ routes: [{ method: 'POST', path: '/checkouts', handler: ok }] });
    expect(() => fake.route('POST', '/checkouts', ok)).toThrow(/^route\(\): POST "\/checkouts" is already a route/);
    expect(() => fake.route('TRACE' as never, '/x', ok)).toThrow(/^route\(\)\.method must be one of/);
    expect(() => fake.route('GET', '/x', 'handler' as never)).toThrow(/^route\(\)\.handler must be a function, got string$/);
    expect(() => defineFakeRoute('GET', 'x', ok)).toThrow(/^defineFakeRoute\.path must be a string starting with "\/"/);
    // the same path with another method is another route
    expect(() => fake.route('GET', '/checkouts', ok)).not.toThrow();
  });
});

describe('partner route matching', () => {
  const partner = { partnerId: 'p-1', partnerSecret: 's-1' };
  const base = 'https://checkout.test/api/v1/partner-api';
  const call = async (fake: ReturnType<typeof createFakeCheckout>, method: string, path: string) => {
    const minted = await fake.fetch(`${base}/auth/token`, {
      method: 'POST',
      headers: { 'x-partner-id': 'p-1', 'x-partner-secret': 's-1' },
    });
    const { accessToken } = (await minted.json()) as { accessToken: string };
    return fake.fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${accessToken}` } });
  };

  it('prefers literal segments to parameters whatever the order of definition', async () => {
    const routes: FakeRoute[] = [
      { method: 'GET', path: '/orders/:id/:part', handler: ({ params }) => ({ body: { route: 'params', ...params } }) },
      { method: 'GET', path: '/orders/:id/status', handler: ({ params }) => ({ body: { route: 'status', ...params } }) },
      { method: 'GET', path: '/orders/recent/:part', handler: ({ params }) => ({ body: { route: 'recent', ...params } }) },
    ];
    const fake = createFakeCheckout({ partners: [partner], routes });
    expect(await (await call(fake, 'GET', '/orders/o-1/status')).json()).toEqual({ route: 'status', id: 'o-1' });
    expect(await (await call(fake, 'GET', '/orders/recent/status')).json()).toEqual({ route: 'recent', part: 'status' });
    expect(await (await call(fake, 'GET', '/orders/o-1/items')).json()).toEqual({ route: 'params', id: 'o-1', part: 'items' });
    expect(await (await call(fake, 'GET', '/orders/o-1/items/')).json()).toEqual({ route: 'params', id: 'o-1', part: 'items' });
    // the fake's own endpoints come first
    expect((await call(fake, 'GET', '/orders/by-external-id/o-1')).status).toBe(404);
    expect(await (await call(fake, 'GET', '/orders/by-external-id/o-1')).json()).toMatchObject({
      message: 'No order with externalId "o-1"',
    });
    expect((await call(fake, 'GET', '/orders/%E0%A4%A/status')).status).toBe(400);
  });

  it("a route's fake has the records by kind beside the per-kind methods", async () => {
    const fake = createFakeCheckout({ partners: [partner] });
    fake.route('POST', '/withdrawals/:id/pay', ({ params, fake: records }) => {
      records.setRecord('withdrawal', { externalId: params.id, status: 'Processing' });
      records.settle('withdrawal', params.id);
      return { body: { status: records.getRecord('withdrawal', params.id)?.status, same: records.getWithdrawal(params.id) } };
    });
    expect(await (await call(fake, 'POST', '/withdrawals/w-1/pay')).json()).toEqual({
      status: 'Completed',
      same: { externalId: 'w-1', status: 'Completed' },
    });
    // and the kinds' reads are the fake's own paths: a route cannot take them
    expect(() => fake.route('GET', '/withdrawals/by-external-id/:id', ok)).toThrow(/is the fake's own endpoint/);
  });

  it('answers 500 naming the route for a return value that is not a response', async () => {
    const cases: [unknown, RegExp][] = [
      [undefined, /returned undefined; return \{ status\?, body\?, headers\? \}/],
      [new Response('x'), /returned a Response;/],
      [{ status: 99 }, /returned status 99; a status is a whole number from 200 to 599/],
      [{ status: 204, body: {} }, /returned a body with status 204, which has none/],
      [{ body: { n: 1n } }, /returned a body that is not JSON data/],
      [{ headers: { 'x-n': 1 } }, /returned header "x-n" as number/],
    ];
    for (const [result, message] of cases) {
      const fake = createFakeCheckout({ partners: [partner] });
      fake.route('GET', '/thing', () => result as never);
      const response = await call(fake, 'GET', '/thing');
      expect(response.status).toBe(500);
      const body = (await response.json()) as { error: string; message: string };
      expect(body.error).toBe('route_failed');
      expect(body.message).toMatch(/^The partner route GET \/thing /);
      expect(body.message).toMatch(message);
    }
  });
});
