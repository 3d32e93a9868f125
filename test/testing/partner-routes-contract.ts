/**
 * Partner routes on the fake (checkout creation, payment), driven by a real CheckoutClient's
 * `request`, as one suite run against each way the fake is served: msw handlers and a real server.
 */
import { ApiError, CheckoutClient, ServerError, type CheckoutClientOptions } from 'checkout-partner-sdk';
import { createFakeCheckout, defineFakeRoute, type FakeCheckout, type FakeRouteRequest } from 'checkout-partner-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLIENT_TIMERS, acrossRetries, attemptCount } from '../helpers/fake-time.js';
import type { Served } from './fake-contract.js';

const PARTNER = { partnerId: 'partner-1', partnerSecret: 'very-secret-1' };
const API = '/api/v1/partner-api';

interface Checkout {
  externalId: string;
  checkoutUrl: string;
}

export function describePartnerRoutes(mode: string, serve: (fake: FakeCheckout) => Promise<Served>): void {
  describe(`partner routes on the fake (${mode})`, () => {
    const created: FakeRouteRequest[] = [];
    // a route list kept apart from the fake, as a partner shares it between test files
    const createCheckout = defineFakeRoute('POST', '/checkouts', (request) => {
      created.push(request);
      const { orderId, currency } = request.body as { orderId: string; currency: string };
      if (request.fake.getOrder(orderId) !== undefined)
        return { status: 409, body: { error: 'exists', message: `order ${orderId} exists` } };
      request.fake.setOrder({ externalId: orderId, currency, settlement: { status: 'Pending', tradeId: null } });
      return {
        status: 201,
        body: { externalId: orderId, checkoutUrl: `https://pay.test/${orderId}` },
        headers: { location: `/checkouts/${orderId}` },
      };
    });
    const fake = createFakeCheckout({ partners: [PARTNER, { partnerId: 'partner-2', partnerSecret: 's-2' }], routes: [createCheckout] });
    let payments = 0;
    const addPayment = () =>
      fake.route('POST', '/orders/:orderId/payment', ({ params, body, fake: records }) => {
        payments += 1;
        if (records.getOrder(params.orderId) === undefined) return { status: 404, body: { error: 'not_found', message: 'no such order' } };
        const tradeId = `t-${params.orderId}`;
        records.settleOrder(params.orderId, { tradeId });
        return { body: { tradeId, settlement: { tradeId }, paid: body } };
      });

    let served: Served;
    const client = (options: CheckoutClientOptions = {}) =>
      new CheckoutClient({ baseUrl: served.baseUrl, ...PARTNER, ...(served.clientFetch ? { fetch: served.clientFetch } : {}), ...options });
    const token = async (partner = PARTNER) => {
      const response = await served.fetch(`${served.baseUrl}${API}/auth/token`, {
        method: 'POST',
        headers: { 'x-partner-id': partner.partnerId, 'x-partner-secret': partner.partnerSecret },
      });
      return ((await response.json()) as { accessToken: string }).accessToken;
    };
    const post = async (path: string, body: string, headers: Record<string, string>) =>
      served.fetch(`${served.baseUrl}${API}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

    beforeAll(async () => {
      served = await serve(fake);
    });
    afterAll(async () => {
      await served.stop();
    });
    afterEach(() => {
      vi.useRealTimers();
      fake.reset();
      created.length = 0;
      payments = 0;
    });

    it('creates a checkout and pays it through client.request; the order reads Settled', async () => {
      addPayment();
      const c = client();
      const checkout = await c.request<Checkout>('POST', '/checkouts', { json: { orderId: 'o-1', currency: 'USDT' } });
      expect(checkout).toEqual({ externalId: 'o-1', checkoutUrl: 'https://pay.test/o-1' });
      expect((await c.getOrderByExternalId('o-1')).settlement?.status).toBe('Pending');

      const paid = await c.request('POST', `/orders/${encodeURIComponent('o-1')}/payment`, { json: { amount: '10.00' } });
      expect(paid).toEqual({ tradeId: 't-o-1', settlement: { tradeId: 't-o-1' }, paid: { amount: '10.00' } });
      expect(await c.getOrderByExternalId('o-1')).toMatchObject({ settlement: { status: 'Settled', tradeId: 't-o-1' } });

      // the handler saw the partner, the parsed body, the query and the headers
      expect(created[0]).toMatchObject({
        method: 'POST',
        path: '/checkouts',
        params: {},
        body: { orderId: 'o-1', currency: 'USDT' },
        partner: { partnerId: 'partner-1' },
      });
      expect(created[0]?.idempotencyKey).toBeUndefined();
      expect(created[0]?.headers.get('authorization')).toMatch(/^Bearer /);
      // the request log lists them, secrets masked
      expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        `POST ${API}/auth/token 200`,
        `POST ${API}/checkouts 201`,
        `GET ${API}/orders/by-external-id/o-1 200`,
        `POST ${API}/orders/o-1/payment 200`,
        `GET ${API}/orders/by-external-id/o-1 200`,
      ]);
      expect(fake.requests[1]?.headers['authorization']).toBe('Bearer [redacted]');
      expect(fake.stats).toMatchObject({ tokenExchanges: 1, businessCalls: 4 });
    });

    it('decodes path parameters and passes the status, headers and body the route returns', async () => {
      addPayment();
      const response = await post('/checkouts', JSON.stringify({ orderId: 'a/b c', currency: 'BRZ' }), {
        authorization: `Bearer ${await token()}`,
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('location')).toBe('/checkouts/a/b c');
      expect(response.headers.get('x-request-id')).toMatch(/^fake-/);
      await client().request('POST', `/orders/${encodeURIComponent('a/b c')}/payment`);
      expect(fake.getOrder('a/b c')?.settlement).toEqual({ status: 'Settled', tradeId: 't-a/b c' });
      expect(fake.requests.at(-1)?.path).toBe(`${API}/orders/a%2Fb%20c/payment`);
    });

    it("applies the fake's Bearer checks before the route runs", async () => {
      const body = JSON.stringify({ orderId: 'o-1', currency: 'USDT' });
      expect((await post('/checkouts', body, {})).status).toBe(401);
      expect((await post('/checkouts', body, { authorization: 'Bearer not.a.jwt' })).status).toBe(401);
      const bearer = `Bearer ${await token()}`;
      expect((await post('/checkouts', body, { authorization: bearer, 'x-partner-id': 'partner-1' })).status).toBe(400);
      fake.revokeTokens();
      expect((await post('/checkouts', body, { authorization: bearer })).status).toBe(401);
      expect(created).toHaveLength(0);
      expect(fake.getOrder('o-1')).toBeUndefined();
    });

    it('answers 400 for a body that is not JSON, 405 with Allow for another method, 404 elsewhere', async () => {
      const authorization = `Bearer ${await token()}`;
      const notJson = await post('/checkouts', '{nope', { authorization });
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toMatchObject({ error: 'invalid_json' });
      const get = await served.fetch(`${served.baseUrl}${API}/checkouts`, { headers: { authorization } });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
      expect((await post('/checkouts/extra', '{}', { authorization })).status).toBe(404);
      expect((await post('/orders/o-1/payment', '{}', { authorization })).status).toBe(404); // added by no test yet
      expect(created).toHaveLength(0);
    });

    it('replays the first response for a repeated Idempotency-Key, and runs the route once', async () => {
      addPayment();
      const c = client();
      await c.request('POST', '/checkouts', { json: { orderId: 'o-1', currency: 'USDT' } });
      const authorization = `Bearer ${await token()}`;
      const pay = (body: string, key = 'pay-o-1', path = '/orders/o-1/payment') =>
        post(path, body, { authorization, 'idempotency-key': key });

      const one = await pay('{"amount":"10.00","currency":"USDT"}');
      const again = await pay('{"currency":"USDT","amount":"10.00"}'); // the same JSON, keys in another order
      expect(one.status).toBe(200);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual(await one.json());
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(one.headers.get('idempotent-replayed')).toBeNull();
      expect(again.headers.get('x-request-id')).toBe(one.headers.get('x-request-id'));
      expect(payments).toBe(1);

      const otherBody = await pay('{"amount":"99.00","currency":"USDT"}');
      expect(otherBody.status).toBe(422);
      expect(await otherBody.json()).toMatchObject({
        error: 'idempotency_key_reused',
        message: expect.stringMatching(/POST \/orders\/o-1\/payment with another body/),
      });
      fake.setOrder({ externalId: 'o-2', currency: 'USDT', settlement: { status: 'Pending', tradeId: null } });
      const otherPath = await pay('{"amount":"10.00","currency":"USDT"}', 'pay-o-1', '/orders/o-2/payment');
      expect(otherPath.status).toBe(422);
      expect(payments).toBe(1);
      expect(fake.getOrder('o-2')?.settlement?.status).toBe('Pending');

      // keys belong to a partner: the same key from another partner is another operation
      const theirs = await post('/orders/o-2/payment', '{}', {
        authorization: `Bearer ${await token({ partnerId: 'partner-2', partnerSecret: 's-2' })}`,
        'idempotency-key': 'pay-o-1',
      });
      expect(theirs.status).toBe(200);
      expect(payments).toBe(2);

      // a key that is not 1 to 255 visible ASCII characters
      expect((await pay('{}', 'has space')).status).toBe(400);
      // reset() forgets the keys (and the route added by this test)
      fake.reset();
      expect(fake.requests).toEqual([]);
    });

    it('with a failNext fault before it, the client retries a keyed POST and the route runs once', async () => {
      addPayment();
      fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: null } });
      const attempts = attemptCount();
      const c = client({ logger: attempts.logger });
      await c.getMe();
      fake.failNext(1, 503, { only: 'business' });
      vi.useFakeTimers(CLIENT_TIMERS); // the retry's backoff
      const paid = await acrossRetries(
        c.request('POST', '/orders/o-1/payment', { json: { amount: '1' }, idempotencyKey: 'pay-1' }),
        attempts,
      );
      expect(paid).toMatchObject({ tradeId: 't-o-1' });
      expect(payments).toBe(1);
      expect(fake.requests.filter((r) => r.path.endsWith('/payment')).map((r) => r.status)).toEqual([503, 200]);
      // sent again later with the same key (a retry after a crash): replayed, not paid twice
      expect(await c.request('POST', '/orders/o-1/payment', { json: { amount: '1' }, idempotencyKey: 'pay-1' })).toEqual(paid);
      expect(payments).toBe(1);
      // a plain POST is sent once: the fault reaches the caller
      fake.failNext(1, 503, { only: 'business' });
      await expect(c.request('POST', '/orders/o-1/payment', { json: { amount: '1' } })).rejects.toBeInstanceOf(ServerError);
      expect(payments).toBe(1);
    });

    it('answers 409 while the first request with a key still runs', async () => {
      let release!: () => void;
      let arrived!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      let runs = 0;
      fake.route('PUT', '/slow/:id', async ({ params }) => {
        runs += 1;
        arrived();
        await held;
        return { body: { id: params.id } };
      });
      const authorization = `Bearer ${await token()}`;
      const put = () =>
        served.fetch(`${served.baseUrl}${API}/slow/1`, { method: 'PUT', headers: { authorization, 'idempotency-key': 'k-1' } });
      const first = put();
      await reached;
      const second = await put();
      expect(second.status).toBe(409);
      expect(second.headers.get('retry-after')).toBe('1');
      expect(await second.json()).toMatchObject({ error: 'idempotency_key_in_use' });
      release();
      expect((await first).status).toBe(200);
      const replay = await put();
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.json()).toEqual({ id: '1' });
      expect(runs).toBe(1);
    });

    it('answers 500 naming the route when it throws or returns what is not a response, and does not remember the key', async () => {
      let fail = true;
      fake.route('DELETE', '/checkouts/:id', ({ params }) => {
        if (fail) throw new Error(`no checkout ${params.id}`);
        return { status: 204 };
      });
      fake.route('PATCH', '/checkouts/:id', () => ({ json: { wrong: true } }) as never);
      const c = client({ maxRetries: 0 });
      const thrown = await c.request('DELETE', '/checkouts/c-1', { idempotencyKey: 'del-1' }).catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(ServerError);
      expect((thrown as ServerError).body).toMatchObject({
        error: 'route_failed',
        message: 'The partner route DELETE /checkouts/:id threw Error: no checkout c-1',
      });
      fail = false;
      await expect(c.request('DELETE', '/checkouts/c-1', { idempotencyKey: 'del-1' })).resolves.toBeUndefined();
      const bad = await c.request('PATCH', '/checkouts/c-1', { json: {} }).catch((error: unknown) => error);
      expect(bad).toBeInstanceOf(ApiError);
      expect((bad as ApiError).body).toMatchObject({
        message: expect.stringMatching(/PATCH \/checkouts\/:id returned an unknown key "json"; return \{ status\?, body\?, headers\? \}/),
      });
    });

    it('keeps the routes given at creation across reset(), and drops those added with route()', async () => {
      addPayment();
      fake.reset();
      const c = client();
      await c.request('POST', '/checkouts', { json: { orderId: 'o-9', currency: 'USDT' } });
      await expect(c.request('POST', '/orders/o-9/payment')).rejects.toMatchObject({ name: 'NotFoundError', status: 404 });
    });
  });
}
