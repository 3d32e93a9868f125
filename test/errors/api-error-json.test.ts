import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ApiError, CheckoutClient, NotFoundError } from 'checkout-partner-sdk';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout } from '../client/helpers.js';

// Issue 16, item 14 (the ApiError part): `JSON.stringify(apiError)` showed `"headers":{}` (a Headers
// has no own properties), so JSON logs lost the request id and every other header. It now shows the
// headers as a plain object, credentials redacted; util.inspect shows them too, never a secret.

const { server } = mockCheckout();
// hand-rolled, not the shipped fake: the raw answer echoes the credentials and sets cookies, which the error must redact

async function notFound(): Promise<NotFoundError> {
  server.use(
    http.get(`${API}/orders/by-external-id/:id`, ({ request }) =>
      HttpResponse.json(
        { message: `no such order (you sent ${request.headers.get('authorization')})` },
        {
          status: 404,
          headers: [
            ['x-request-id', 'req-42'],
            ['x-echo', encodeURIComponent(request.headers.get('authorization') ?? '')],
            ['set-cookie', 'session=abc123; HttpOnly'],
            ['set-cookie', 'other=def456'],
            ['vary', 'accept'],
          ],
        },
      ),
    ),
  );
  const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET });
  return (await client.getOrderByExternalId('o-1').catch((e: unknown) => e)) as NotFoundError;
}

describe('an ApiError as JSON and under util.inspect', () => {
  it('JSON.stringify shows name, message, status, requestId and the headers as a plain object, redacted', async () => {
    const error = await notFound();
    expect(error).toBeInstanceOf(ApiError);
    const json = JSON.parse(JSON.stringify(error)) as Record<string, unknown>;
    expect(json).toMatchObject({
      name: 'NotFoundError',
      status: 404,
      requestId: 'req-42',
      attempts: 1,
      body: { message: 'no such order (you sent Bearer [redacted])' },
      headers: {
        'x-request-id': 'req-42',
        'x-echo': 'Bearer%20[redacted]',
        'set-cookie': '[redacted], [redacted]',
        vary: 'accept',
        'content-type': 'application/json',
      },
    });
    expect(json.message).toBe(error.message);
    const text = JSON.stringify(error);
    for (const secret of ['tok-1', PARTNER_SECRET, 'abc123']) expect(text).not.toContain(secret);
  });

  it('a JSON logger (an object holding the error) shows the same', async () => {
    const error = await notFound();
    const line = JSON.stringify({ level: 'error', err: error });
    expect(line).toContain('"x-request-id":"req-42"');
    expect(line).not.toContain('"headers":{}');
  });

  it('util.inspect shows the headers and no credential', async () => {
    const error = await notFound();
    const text = inspect(error, { showHidden: true, depth: Infinity });
    expect(text).toContain('req-42');
    for (const secret of ['tok-1', PARTNER_SECRET]) expect(text).not.toContain(secret);
  });

  it('an error without a response shows empty headers, still as an object', () => {
    const json = JSON.parse(JSON.stringify(new ApiError('no response'))) as Record<string, unknown>;
    expect(json).toMatchObject({ name: 'ApiError', message: 'no response', headers: {} });
  });
});
