import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout } from './helpers.js';

const { server } = mockCheckout();
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwYXJ0bmVyLTEifQ.leaky-token-signature';

function everythingPrintable(value: unknown): string {
  const parts = [inspect(value, { showHidden: true, depth: Infinity }), JSON.stringify(value) ?? ''];
  if (value instanceof Error)
    parts.push(value.message, value.stack ?? '', String((value.cause as { toString(): string } | undefined) ?? ''));
  return parts.join('\n');
}

describe('secrets', () => {
  const newClient = (extra: object = {}) =>
    new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET, maxRetries: 0, ...extra });

  it('never shows the secret or the token when the client is printed', async () => {
    server.use(http.post(`${API}/auth/token`, () => HttpResponse.json({ accessToken: TOKEN, tokenType: 'Bearer', expiresIn: 3600 })));
    const client = newClient();
    await client.getAccessToken();
    const printed = everythingPrintable(client);
    expect(printed).toContain(PARTNER_ID);
    expect(printed).not.toContain(PARTNER_SECRET);
    expect(printed).not.toContain(TOKEN);
    expect(JSON.parse(JSON.stringify(client))).toEqual({ baseUrl: `${ORIGIN}/api/v1/partner-api`, partnerId: PARTNER_ID });
  });

  it.each([
    [
      'exchange 401',
      'AuthenticationError',
      () => [http.post(`${API}/auth/token`, () => new HttpResponse('bad credentials', { status: 401 }))],
    ],
    ['exchange 500', 'ServerError', () => [http.post(`${API}/auth/token`, () => new HttpResponse(null, { status: 500 }))]],
    [
      'exchange malformed',
      'ResponseValidationError',
      () => [http.post(`${API}/auth/token`, () => HttpResponse.json({ tokenType: 'Bearer' }))],
    ],
    ['exchange network error', 'ConnectionError', () => [http.post(`${API}/auth/token`, () => HttpResponse.error())]],
    ['business 401 twice', 'AuthenticationError', () => [http.get(`${API}/auth/me`, () => new HttpResponse(null, { status: 401 }))]],
    ['business 403', 'PermissionDeniedError', () => [http.get(`${API}/auth/me`, () => new HttpResponse(null, { status: 403 }))]],
    ['business 500', 'ServerError', () => [http.get(`${API}/auth/me`, () => new HttpResponse(null, { status: 500 }))]],
    ['business malformed', 'ResponseValidationError', () => [http.get(`${API}/auth/me`, () => HttpResponse.json([1, 2]))]],
    ['business network error', 'ConnectionError', () => [http.get(`${API}/auth/me`, () => HttpResponse.error())]],
  ])('keeps the secret and the token out of the error (%s)', async (_name, expectedName, handlers) => {
    // the scenario's handlers first: msw uses the first handler that matches
    server.use(
      ...handlers(),
      http.post(`${API}/auth/token`, () => HttpResponse.json({ accessToken: TOKEN, tokenType: 'Bearer', expiresIn: 3600 })),
    );
    const error = await newClient()
      .getMe()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: expectedName });
    const printed = everythingPrintable(error);
    expect(printed).not.toContain(PARTNER_SECRET);
    expect(printed).not.toContain(TOKEN);
  });
});

describe('a token response that fails validation', () => {
  it('masks the token in the error body but keeps the rest', async () => {
    server.use(http.post(`${API}/auth/token`, () => HttpResponse.json({ accessToken: TOKEN, tokenType: 'Bearer', expiresIn: 'soon' })));
    const error = await new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET })
      .getAccessToken()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'ResponseValidationError',
      status: 200,
      body: { accessToken: '[redacted]', expiresIn: '[redacted]' },
    });
    expect((error as { issues: unknown[] }).issues[0]).toMatchObject({ path: ['expiresIn'] });
    expect(everythingPrintable(error)).not.toContain(TOKEN);
  });
});

describe('a token response in another shape', () => {
  it.each([
    [{ access_token: TOKEN, token_type: 'Bearer', expires_in: 3600 }],
    [{ token: TOKEN, expiresIn: 3600 }],
    [{ data: { accessToken: TOKEN }, expiresIn: 3600 }],
    [[TOKEN]],
  ])('keeps the token out of the error (%j)', async (body) => {
    server.use(http.post(`${API}/auth/token`, () => HttpResponse.json(body)));
    const error = await new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET })
      .getAccessToken()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ResponseValidationError' });
    expect(everythingPrintable(error)).not.toContain(TOKEN);
  });
});
