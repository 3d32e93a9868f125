import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout, order } from './helpers.js';

// A partner clock ahead of the service (or a service clock behind) never causes an exchange per
// call: the reuse window is measured on the local clock from the response's arrival (issue 9, item 10).

const { server, state } = mockCheckout();
const newClient = (extra: object = {}) =>
  new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET, ...extra });
afterEach(() => vi.useRealTimers());

/** A JWT-shaped token (unsigned) with the given `iat` and `exp` (epoch seconds). */
function jwt(claims: { iat?: number; exp?: number }, n: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: `partner-${n}`, ...claims })}.c2ln`;
}

async function thirtyReads(client: CheckoutClient): Promise<void> {
  server.use(http.get(`${API}/orders/by-external-id/:id`, () => HttpResponse.json(order('o-1'))));
  for (let i = 0; i < 30; i++) await client.getOrderByExternalId('o-1');
}

describe('clock skew', () => {
  it('a JWT whose exp is already past by the local clock (partner clock 2 h ahead) is reused for its lifetime, not re-minted per call', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const serviceNow = Math.floor(Date.now() / 1000) - 7_200; // the service's clock is 2 h behind ours
    state.tokenResponse = (n) => ({ accessToken: jwt({ iat: serviceNow, exp: serviceNow + 600 }, n), tokenType: 'Bearer', expiresIn: 600 });
    const client = newClient({ tokenSkewSeconds: 30 });
    await thirtyReads(client);
    expect(state.exchanges).toBe(1);
    const arrived = Date.now();
    expect(client.tokenExpiresAt).toBe(arrived + 570_000); // exp − iat − skew, from the arrival
    vi.setSystemTime(arrived + 569_000);
    await client.getAccessToken();
    expect(state.exchanges).toBe(1);
    vi.setSystemTime(arrived + 571_000);
    await client.getAccessToken();
    expect(state.exchanges).toBe(2);
  });

  it('caps the window by the JWT lifetime (exp − iat) when it is shorter than expiresIn', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const serviceNow = Math.floor(Date.now() / 1000) + 3_600; // the service's clock is ahead
    state.tokenResponse = (n) => ({
      accessToken: jwt({ iat: serviceNow, exp: serviceNow + 120 }, n),
      tokenType: 'Bearer',
      expiresIn: 3600,
    });
    const client = newClient({ tokenSkewSeconds: 10 });
    const arrived = Date.now();
    await client.getAccessToken();
    expect(client.tokenExpiresAt).toBe(arrived + 110_000);
  });

  it('uses exp itself when iat shows the clocks agree (exp − iat has only whole seconds)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_800_000_000_700); // 0.7 s into the second the service put in iat
    state.tokenResponse = (n) => ({
      accessToken: jwt({ iat: 1_800_000_000, exp: 1_800_000_004 }, n),
      tokenType: 'Bearer',
      expiresIn: 3600,
    });
    const client = newClient({ tokenSkewSeconds: 0 });
    await client.getAccessToken();
    expect(client.tokenExpiresAt).toBe(1_800_000_004_000); // not arrival + 4 s, which would outlive exp
  });

  it.each([
    ['a JWT lifetime below a millisecond', (n: number) => jwt({ iat: 1_000, exp: 1_000 }, n), 3600],
    ['a JWT exp long past with no iat', (n: number) => jwt({ exp: 1_000 }, n), 3600],
    ['expiresIn 1 with the default skew', (n: number) => `opaque-${n}`, 1],
  ])('%s: the token is still reused for at least 1 s', async (_, token, expiresIn) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    state.tokenResponse = (n) => ({ accessToken: token(n), tokenType: 'Bearer', expiresIn });
    const client = newClient();
    const arrived = Date.now();
    await thirtyReads(client);
    expect(state.exchanges).toBe(1);
    expect(client.tokenExpiresAt).toBe(arrived + 1_000);
    vi.setSystemTime(arrived + 1_001);
    await client.getAccessToken();
    expect(state.exchanges).toBe(2);
  });
});
