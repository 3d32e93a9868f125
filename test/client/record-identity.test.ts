import { CheckoutClient, ResponseValidationError, WaitTimeoutError } from 'checkout-partner-sdk';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout, order } from './helpers.js';

// A 200 for order A that carries order B's record (a caching proxy, a service fault) must never
// become A's status: the tracker, the webhook confirmation and waitFor* all read through these calls.
const { server, state } = mockCheckout();

const client = () => new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET });
const reads = () => state.seen.filter((seen) => seen.method === 'GET').length;

describe('a record is the one that was asked for', () => {
  it("refuses order B's record for order A with a ResponseValidationError naming both ids, and does not retry", async () => {
    server.use(
      http.get(`${API}/orders/by-external-id/:id`, () =>
        HttpResponse.json(order('order-B', { settlement: { status: 'Settled', tradeId: 't-9' } })),
      ),
    );
    const error = await client()
      .getOrderByExternalId('order-A')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    const refused = error as ResponseValidationError;
    expect(refused.message).toContain('"order-A"');
    expect(refused.message).toContain('"order-B"');
    expect(refused.status).toBe(200);
    expect(refused.issues).toEqual([expect.objectContaining({ path: ['externalId'] })]);
    expect(refused.attempts).toBe(1);
    expect(reads()).toBe(1);
    expect(refused.message).not.toContain(PARTNER_SECRET);
  });

  it("refuses withdrawal B's record for withdrawal A, also through withResponse()", async () => {
    server.use(http.get(`${API}/withdrawals/by-external-id/:id`, () => HttpResponse.json({ externalId: 'w-B', status: 'Completed' })));
    await expect(client().getWithdrawalByExternalId('w-A')).rejects.toThrow(/"w-B", not the one asked for \("w-A"\)/);
    await expect(client().withResponse().getWithdrawalByExternalId('w-A')).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('compares the ids exactly: another case or a percent-encoded form is another record', async () => {
    server.use(http.get(`${API}/orders/by-external-id/:id`, () => HttpResponse.json(order('ORDER-A'))));
    await expect(client().getOrderByExternalId('order-A')).rejects.toBeInstanceOf(ResponseValidationError);
    server.use(http.get(`${API}/orders/by-external-id/:id`, () => HttpResponse.json(order('a%2Fb'))));
    await expect(client().getOrderByExternalId('a/b')).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('accepts the record asked for, an id that needs encoding included', async () => {
    server.use(http.get(`${API}/orders/by-external-id/:id`, ({ params }) => HttpResponse.json(order(String(params['id'])))));
    await expect(client().getOrderByExternalId('a/b c')).resolves.toMatchObject({ externalId: 'a/b c' });
  });

  it('quotes a long foreign id cut short', async () => {
    server.use(http.get(`${API}/orders/by-external-id/:id`, () => HttpResponse.json(order('x'.repeat(5_000)))));
    const error = (await client()
      .getOrderByExternalId('order-A')
      .catch((e: unknown) => e)) as Error;
    expect(error.message.length).toBeLessThan(600);
  });

  it("waitForOrder rejects on B's record instead of resolving with it", async () => {
    server.use(
      http.get(`${API}/orders/by-external-id/:id`, () => HttpResponse.json(order('order-B', { settlement: { status: 'Settled' } }))),
    );
    const waited = client().waitForOrder('order-A', (o) => o.settlement?.status === 'Settled', { intervalMs: 1, timeoutMs: 5_000 });
    await expect(waited).rejects.toBeInstanceOf(ResponseValidationError);
    await expect(waited).rejects.not.toBeInstanceOf(WaitTimeoutError);
  });

  it('leaves request() alone: an untyped endpoint has no id to compare', async () => {
    server.use(http.get(`${API}/orders/by-external-id/:id`, () => HttpResponse.json(order('order-B'))));
    await expect(client().request('GET', '/orders/by-external-id/order-A')).resolves.toMatchObject({ externalId: 'order-B' });
  });
});
