import fc from 'fast-check';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';

// Hostile external ids: whatever string a partner passes is sent as exactly one path segment
// that decodes back to it, or rejected with a TypeError before any request leaves.
// Hand-rolled msw, not the shipped fake: a catch-all must see the raw URL of a request that escaped.

const ORIGIN = 'https://checkout.test';
const seen: URL[] = [];
const server = setupServer(
  http.post(`${ORIGIN}/api/v1/partner-api/auth/token`, () =>
    HttpResponse.json({ accessToken: 'tok-hostile', tokenType: 'Bearer', expiresIn: 3600 }),
  ),
  // a catch-all, so an id that escaped its segment is still seen (and fails the property)
  http.get(/^https:\/\/checkout\.test\//, ({ request }) => {
    const url = new URL(request.url);
    seen.push(url);
    const last = url.pathname.split('/').at(-1) ?? '';
    let externalId = last;
    try {
      externalId = decodeURIComponent(last);
    } catch {
      // left as is: the property then fails on the comparison
    }
    return url.pathname.includes('/withdrawals/')
      ? HttpResponse.json({ externalId, status: 'Processing' })
      : HttpResponse.json({ externalId, settlement: null });
  }),
);
/** Every request that left the client, the token exchange included. */
const sent: string[] = [];
server.events.on('request:start', ({ request }) => {
  sent.push(`${request.method} ${request.url}`);
});
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'p-1', partnerSecret: 's-1', maxRetries: 0 });

/** UTF-16 code units one by one, so lone surrogates occur. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const nasty = fc.constantFrom(
  '.',
  '..',
  '',
  '/',
  '//',
  '../admin',
  '%2e%2e',
  '%2F',
  '?a=1',
  '#frag',
  '%',
  '%zz',
  ' ',
  '\u0000',
  'a/../b',
  '\\',
  '..\\..',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '😀',
  '\u202e',
  'order 42',
  '+',
  '&x=y',
  ';jsessionid=1',
  '*',
  "'",
  '"<>',
);
const externalIds = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: codeUnit, maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('.', '/', '%', '?', '#', '\\', 'a', '2', 'e', 'F', ' '), maxLength: 8 }),
  nasty,
);

/** What the client rejects by design: not one path segment. */
const rejectedByDesign = (id: string) => id === '' || id === '.' || id === '..' || !id.isWellFormed();

describe.each([
  ['getOrderByExternalId', 'orders', (id: string) => client.getOrderByExternalId(id)],
  ['getWithdrawalByExternalId', 'withdrawals', (id: string) => client.getWithdrawalByExternalId(id)],
] as const)('%s with hostile ids', (_name, resource, read) => {
  it('sends the id as one segment that decodes back to it, or rejects with a TypeError before any request', async () => {
    await fc.assert(
      fc.asyncProperty(externalIds, async (id) => {
        seen.length = 0;
        sent.length = 0;
        const outcome = await read(id).then(
          (record) => ({ record }),
          (error: unknown) => ({ error }),
        );
        if (rejectedByDesign(id)) {
          expect(outcome).toMatchObject({ error: expect.any(TypeError) });
          expect(sent).toEqual([]);
          return;
        }
        expect(outcome).not.toHaveProperty('error');
        expect(seen).toHaveLength(1);
        const url = seen[0] as URL;
        const segments = url.pathname.split('/');
        // the other segments never change, and nothing leaked into the query or the fragment
        expect(segments.slice(0, -1)).toEqual(['', 'api', 'v1', 'partner-api', resource, 'by-external-id']);
        expect(url.search).toBe('');
        expect(url.hash).toBe('');
        expect(url.origin).toBe(ORIGIN);
        expect(decodeURIComponent(segments.at(-1) ?? '')).toBe(id);
        expect((outcome as { record: { externalId: string } }).record.externalId).toBe(id);
      }),
      { numRuns: 200 },
    );
  });
});

describe('ids that cannot be a path segment', () => {
  it.each(['', '.', '..', '\ud800', 'a\udc00', 'x\ud83d'])('rejects %j with a TypeError and sends nothing', async (id) => {
    sent.length = 0;
    const fresh = new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'p-1', partnerSecret: 's-1' });
    await expect(fresh.getOrderByExternalId(id)).rejects.toThrow(TypeError);
    await expect(fresh.getWithdrawalByExternalId(id)).rejects.toThrow(TypeError);
    await expect(fresh.waitForOrder(id, () => true)).rejects.toThrow(TypeError);
    await expect(fresh.waitForWithdrawal(id, () => true)).rejects.toThrow(TypeError);
    expect(sent).toEqual([]);
  });

  it.each([undefined, null, 42, {}, ['a'], Symbol('id')])('rejects a non-string id (%s) with a TypeError', async (id) => {
    sent.length = 0;
    const fresh = new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'p-1', partnerSecret: 's-1' });
    await expect(fresh.getOrderByExternalId(id as string)).rejects.toThrow(TypeError);
    await expect(fresh.getWithdrawalByExternalId(id as string)).rejects.toThrow(TypeError);
    expect(sent).toEqual([]);
  });
});
