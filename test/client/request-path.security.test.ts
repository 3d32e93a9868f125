import { beforeEach, describe, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { CheckoutClient } from 'checkout-partner-sdk';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout } from './helpers.js';

// Issue 16, item 2: `request()` refused "." and ".." segments as written, but the URL parser deletes
// TAB, LF and CR, so `/orders/.\t./.\t./admin/users` became `/api/admin/users` and carried the Bearer
// token there. Control characters are now refused, and the parsed URL must stay below the API base.

const { server, state } = mockCheckout();
// hand-rolled, not the shipped fake: a catch-all over the whole origin, so a path that escaped the API base is seen
beforeEach(() => server.use(http.get(`${ORIGIN}/*`, () => HttpResponse.json({ reached: true }))));

const client = () => new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET });

describe('request() paths', () => {
  it.each([
    ['TAB', '/orders/.\t./.\t./admin/users'],
    ['LF', '/orders/.\n./.\n./admin/users'],
    ['CR', '/orders/.\r./.\r./admin/users'],
    ['CR LF', '/orders/.\r\n./.\r\n./admin/users'],
    ['a TAB inside %2e', '/orders/%2\te%2e/%2e%2\te/admin/users'],
    ['a lone TAB', '/orders/a\tb'],
    ['NUL', '/orders/a\u0000b'],
    ['ESC', '/orders/a\u001bb'],
    ['DEL', '/orders/a\u007fb'],
    ['a TAB in the query', '/orders?x=\t'],
  ])('refuses a path with %s and sends nothing, not even a token exchange', async (_name, path) => {
    const c = client();
    await expect(c.request('GET', path)).rejects.toThrow(TypeError);
    await expect(c.withResponse().request('POST', path, { json: {} })).rejects.toThrow(TypeError);
    expect(state.seen).toEqual([]);
  });

  it.each([
    ['an encoded dot segment the parser resolves', '/orders/%2e%2E/%2e%2e/admin'],
    ['a backslash dot segment', '/orders\\..\\..\\admin'],
  ])('refuses %s (checked on the parsed URL)', async (_name, path) => {
    await expect(client().request('GET', path)).rejects.toThrow(TypeError);
    expect(state.seen).toEqual([]);
  });

  it('still sends an ordinary path, a percent-encoded TAB and dots inside a segment, below the API base', async () => {
    const c = client();
    await expect(c.request('GET', '/orders/a%09b/x..y/.z')).resolves.toEqual({ reached: true });
    await expect(c.request('GET', 'orders/plain')).resolves.toEqual({ reached: true });
    const paths = state.seen.filter((r) => r.method === 'GET').map((r) => r.path);
    expect(paths).toEqual(['/api/v1/partner-api/orders/a%09b/x..y/.z', '/api/v1/partner-api/orders/plain']);
    expect(paths.every((p) => p.startsWith(new URL(API).pathname + '/'))).toBe(true);
  });
});
