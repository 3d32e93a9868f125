import { describe, expect, it, onTestFinished } from 'vitest';
import { http, HttpResponse } from 'msw';
import { inspect } from 'node:util';
import { CheckoutClient } from 'checkout-partner-sdk';
import type { TokenStore } from 'checkout-partner-sdk/stores';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout } from './helpers.js';

// `baseUrl` and `partnerId` were TypeScript-`readonly` only: JavaScript could reassign them, and
// request()'s path guard, the token exchange's x-partner-id and the token store key read them. They
// are now fixed at construction: assigning throws (ES modules are strict) and calls go where they went.

const { server } = mockCheckout();

/** A token store that records the keys it is asked for. */
function keyStore() {
  const keys: string[] = [];
  const store: TokenStore = {
    get: async (key) => void keys.push(key),
    set: async (key) => void keys.push(key),
  };
  return { keys, store };
}

describe('CheckoutClient baseUrl and partnerId', () => {
  it('cannot be reassigned or redefined; calls still go to the original base URL, as the original partner', async () => {
    const urls: string[] = [];
    const partnerIds: (string | null)[] = [];
    const listener = ({ request }: { request: Request }) => {
      urls.push(request.url);
      partnerIds.push(request.headers.get('x-partner-id'));
    };
    server.events.on('request:start', listener);
    onTestFinished(() => server.events.removeListener('request:start', listener));
    // hand-rolled, not the shipped fake: a catch-all answering any path, so a request that escaped is seen
    server.use(http.get(`${API}/*`, () => HttpResponse.json({ reached: true })));
    const { keys, store } = keyStore();
    const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET, tokenStore: store });
    const writable = client as unknown as { baseUrl: string; partnerId: string };
    expect(() => {
      writable.baseUrl = 'https://evil.test';
    }).toThrow(TypeError);
    expect(() => {
      writable.partnerId = 'someone-else';
    }).toThrow(TypeError);
    expect(() => Object.defineProperty(client, 'baseUrl', { value: 'https://evil.test' })).toThrow(TypeError);
    expect(Reflect.deleteProperty(client, 'partnerId')).toBe(false);
    expect(client.baseUrl).toBe(API);
    expect(client.partnerId).toBe(PARTNER_ID);

    await expect(client.request('GET', '/orders/x')).resolves.toEqual({ reached: true });
    expect(urls).toEqual([`${API}/auth/token`, `${API}/orders/x`]);
    expect(partnerIds[0]).toBe(PARTNER_ID);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.startsWith(`checkout-partner-sdk:token:${API}:${PARTNER_ID}:`))).toBe(true);
  });

  it('stay plain enumerable data: JSON, spread and inspect show them and nothing else', () => {
    const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET });
    expect(JSON.parse(JSON.stringify(client))).toEqual({ baseUrl: API, partnerId: PARTNER_ID });
    expect(Object.keys(client)).toEqual(['baseUrl', 'partnerId']);
    expect(inspect(client)).not.toContain(PARTNER_SECRET);
  });
});
