import { afterEach, describe, expect, it, vi } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout } from './helpers.js';

const { state } = mockCheckout();
const valid = { baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET };

afterEach(() => vi.unstubAllEnvs());

describe('construction', () => {
  it.each([
    ['baseUrl', 'CHECKOUT_BASE_URL'],
    ['partnerId', 'CHECKOUT_PARTNER_ID'],
    ['partnerSecret', 'CHECKOUT_PARTNER_SECRET'],
  ])('throws a TypeError naming %s when option and env are both missing', (name, envName) => {
    vi.stubEnv(envName, '');
    const options = { ...valid, [name]: undefined };
    expect(() => new CheckoutClient(options)).toThrow(TypeError);
    expect(() => new CheckoutClient(options)).toThrow(new RegExp(`${name}.*${envName}`));
  });

  it('falls back to the environment', async () => {
    vi.stubEnv('CHECKOUT_BASE_URL', ORIGIN);
    vi.stubEnv('CHECKOUT_PARTNER_ID', 'env-partner');
    vi.stubEnv('CHECKOUT_PARTNER_SECRET', 'env-secret');
    const client = new CheckoutClient();
    expect(client.baseUrl).toBe(API);
    expect(client.partnerId).toBe('env-partner');
    await client.getAccessToken();
    expect(state.seen[0]?.headers['x-partner-secret']).toBe('env-secret');
  });

  it('prefers options over the environment', () => {
    vi.stubEnv('CHECKOUT_PARTNER_ID', 'env-partner');
    expect(new CheckoutClient(valid).partnerId).toBe(PARTNER_ID);
  });

  it.each([
    ['https://checkout.test', API],
    ['https://checkout.test/', API],
    ['https://checkout.test/api/v1/partner-api', API],
    ['https://checkout.test/api/v1/partner-api/', API],
    ['https://checkout.test/prefix/', 'https://checkout.test/prefix/api/v1/partner-api'],
  ])('normalises baseUrl %s', (baseUrl, expected) => {
    expect(new CheckoutClient({ ...valid, baseUrl }).baseUrl).toBe(expected);
  });

  it('sends requests below the normalised base', async () => {
    await new CheckoutClient({ ...valid, baseUrl: `${ORIGIN}/api/v1/partner-api/` }).getAccessToken();
    expect(state.seen[0]?.path).toBe('/api/v1/partner-api/auth/token');
  });

  it.each([
    [{ baseUrl: 'not a url' }, /baseUrl/],
    [{ baseUrl: 'ftp://checkout.test' }, /http or https/],
    [{ baseUrl: 'https://user:pw@checkout.test' }, /credentials/],
    [{ partnerId: 42 }, /partnerId must be a string/],
    [{ partnerSecret: 42 }, /partnerSecret must be a string/],
    [{ timeoutMs: 0 }, /timeoutMs/],
    [{ timeoutMs: Number.NaN }, /timeoutMs/],
    [{ maxRetries: -1 }, /maxRetries/],
    [{ maxRetries: 1.5 }, /maxRetries/],
    [{ tokenSkewSeconds: -1 }, /tokenSkewSeconds/],
    [{ fetch: 'nope' }, /fetch must be a function/],
    [{ tokenStore: {} }, /tokenStore/],
  ])('rejects bad options %o with a TypeError', (bad, message) => {
    expect(() => new CheckoutClient({ ...valid, ...(bad as object) })).toThrow(TypeError);
    expect(() => new CheckoutClient({ ...valid, ...(bad as object) })).toThrow(message);
  });

  it('rejects non-object options', () => {
    expect(() => new CheckoutClient(null as never)).toThrow(TypeError);
  });

  it('uses a custom fetch', async () => {
    const seen: string[] = [];
    const client = new CheckoutClient({
      ...valid,
      fetch: async (input, init) => {
        seen.push(input instanceof Request ? input.url : String(input));
        return fetch(input, init);
      },
    });
    await client.getAccessToken();
    expect(seen).toEqual([`${API}/auth/token`]);
  });
});
