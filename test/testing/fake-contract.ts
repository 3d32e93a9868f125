/**
 * The fake checkout service's behaviour, as one suite run against each way it is served
 * (msw handlers, a real server on 127.0.0.1, its fetch function): it must behave the same.
 */
import {
  AuthenticationError,
  CheckoutClient,
  ConnectionError,
  NotFoundError,
  ServerError,
  TimeoutError,
  type CheckoutClientOptions,
} from 'checkout-partner-sdk';
import { createFakeCheckout, type FakeCheckout } from 'checkout-partner-sdk/testing';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectEveryKind, thrown } from '../helpers/kinds.js';
import { CLIENT_TIMERS, acrossRetries, attemptCount, reached, settled } from '../helpers/fake-time.js';

export interface Served {
  /** The origin to pass as the client's baseUrl. */
  baseUrl: string;
  /** How raw requests reach the fake in this mode. */
  fetch: typeof globalThis.fetch;
  /** A `fetch` option for the client, when the mode needs one. */
  clientFetch?: typeof globalThis.fetch;
  stop(): Promise<void> | void;
}

const PARTNER = { partnerId: 'partner-1', partnerSecret: 'very-secret-1' };
const API = '/api/v1/partner-api';

export function describeFakeContract(mode: string, serve: (fake: FakeCheckout) => Promise<Served>): void {
  describe(`fake checkout service (${mode})`, () => {
    const fake = createFakeCheckout({
      partners: [
        PARTNER,
        { partnerId: 'disabled', partnerSecret: 's-d', enabled: false },
        { partnerId: 'no-api', partnerSecret: 's-n', apiEnabled: false },
      ],
      tokenTtlSeconds: 600,
    });
    let served: Served;
    const url = (path: string) => `${served.baseUrl}${API}${path}`;
    const raw = (path: string, init?: RequestInit) => served.fetch(url(path), init);
    const client = (options: CheckoutClientOptions = {}) =>
      new CheckoutClient({
        baseUrl: served.baseUrl,
        ...PARTNER,
        ...(served.clientFetch ? { fetch: served.clientFetch } : {}),
        ...options,
      });
    const mint = async (partnerId = PARTNER.partnerId, partnerSecret = PARTNER.partnerSecret) => {
      const response = await raw('/auth/token', {
        method: 'POST',
        headers: { 'x-partner-id': partnerId, 'x-partner-secret': partnerSecret },
      });
      return { response, body: (await response.json()) as { accessToken: string; tokenType: string; expiresIn: number; message?: string } };
    };

    beforeAll(async () => {
      served = await serve(fake);
    });
    afterAll(async () => {
      await served.stop();
    });
    afterEach(() => {
      vi.useRealTimers();
      fake.reset();
    });

    describe('POST /auth/token', () => {
      it('issues an HS256 JWT Bearer token with expiresIn', async () => {
        const { response, body } = await mint();
        expect(response.status).toBe(200);
        expect(body.tokenType).toBe('Bearer');
        expect(body.expiresIn).toBe(600);
        expect(decodeProtectedHeader(body.accessToken).alg).toBe('HS256');
        const claims = decodeJwt(body.accessToken);
        expect(claims.sub).toBe('partner-1');
        expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(600);
        expect(fake.stats).toMatchObject({ tokenExchanges: 1, tokensIssued: 1 });
      });

      it.each([
        ['the x-partner-id header is missing', { 'x-partner-secret': 'very-secret-1' }, /required/],
        ['the x-partner-secret header is missing', { 'x-partner-id': 'partner-1' }, /required/],
        ['the secret is wrong', { 'x-partner-id': 'partner-1', 'x-partner-secret': 'nope' }, /invalid partner credentials/i],
        ['the partner is unknown', { 'x-partner-id': 'who', 'x-partner-secret': 'very-secret-1' }, /invalid partner credentials/i],
        ['the partner is disabled', { 'x-partner-id': 'disabled', 'x-partner-secret': 's-d' }, /disabled/],
        ['PartnerApiEnabled is false', { 'x-partner-id': 'no-api', 'x-partner-secret': 's-n' }, /PartnerApiEnabled/],
      ])('answers 401 when %s', async (_cause, headers, message) => {
        const response = await raw('/auth/token', { method: 'POST', headers });
        expect(response.status).toBe(401);
        expect(((await response.json()) as { message: string }).message).toMatch(message);
        expect(fake.stats.tokensIssued).toBe(0);
      });

      it('makes the client reject with AuthenticationError for each 401 cause', async () => {
        for (const credentials of [
          { partnerSecret: 'nope' },
          { partnerId: 'disabled', partnerSecret: 's-d' },
          { partnerId: 'no-api', partnerSecret: 's-n' },
        ]) {
          await expect(client(credentials).getMe()).rejects.toBeInstanceOf(AuthenticationError);
        }
      });

      it('refuses a Bearer token on the exchange and other methods', async () => {
        const withBearer = await raw('/auth/token', {
          method: 'POST',
          headers: { ...headersOf(PARTNER), authorization: 'Bearer x' },
        });
        expect(withBearer.status).toBe(400);
        expect((await raw('/auth/token')).status).toBe(405);
      });
    });

    describe('business endpoints', () => {
      it('serves /auth/me, orders and withdrawals through a real CheckoutClient with one token exchange', async () => {
        fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' }, amount: '10.00' });
        fake.setWithdrawal({ externalId: 'w-1', status: 'Processing' });
        const c = client();
        expect(await c.getMe()).toMatchObject({ partnerId: 'partner-1' });
        const order = await c.getOrderByExternalId('o-1');
        expect(order).toEqual({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' }, amount: '10.00' });
        expect(await c.getWithdrawalByExternalId('w-1')).toEqual({ externalId: 'w-1', status: 'Processing' });
        expect(fake.stats).toMatchObject({ tokenExchanges: 1, businessCalls: 3 });
      });

      it('counts status reads by kind and by record, whatever their answer; other business calls are not reads', async () => {
        fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
        fake.setOrder({ externalId: '__proto__', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-2' } });
        fake.setWithdrawal({ externalId: 'w-1', status: 'Processing' });
        const c = client({ maxRetries: 0 });
        await c.getMe();
        await c.getOrderByExternalId('o-1');
        await c.getOrderByExternalId('o-1');
        await c.getOrderByExternalId('__proto__');
        await expect(c.getOrderByExternalId('a/missing')).rejects.toBeInstanceOf(NotFoundError);
        fake.failNext(1, 503, { only: { kind: 'withdrawal' } });
        await expect(c.getWithdrawalByExternalId('w-1')).rejects.toBeInstanceOf(ServerError);
        await c.getWithdrawalByExternalId('w-1');
        const { statusReads, businessCalls } = fake.stats;
        expect(businessCalls).toBe(7);
        expect(statusReads.order.total).toBe(4);
        expect({ ...statusReads.order.byExternalId }).toEqual({ 'o-1': 2, ['__proto__']: 1, 'a/missing': 1 });
        expect(statusReads.order.byExternalId.toString).toBeUndefined();
        expect(statusReads.withdrawal).toEqual({ total: 2, byExternalId: { 'w-1': 2 } });
        // a snapshot: later reads do not change it
        await c.getOrderByExternalId('o-1');
        expect(statusReads.order.byExternalId['o-1']).toBe(2);
        expect(fake.stats.statusReads.order.byExternalId['o-1']).toBe(3);
      });

      it('answers 404 for an unknown order or withdrawal', async () => {
        const c = client();
        await expect(c.getOrderByExternalId('missing')).rejects.toBeInstanceOf(NotFoundError);
        await expect(c.getWithdrawalByExternalId('missing')).rejects.toMatchObject({ name: 'NotFoundError', status: 404 });
        expect(fake.stats.notFound).toBe(2);
      });

      it('finds an id holding a slash, sent as one encoded segment', async () => {
        fake.setOrder({ externalId: 'a/b c', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
        expect((await client().getOrderByExternalId('a/b c')).externalId).toBe('a/b c');
        expect(fake.requests.at(-1)?.path).toBe(`${API}/orders/by-external-id/a%2Fb%20c`);
      });

      it('answers 401 without a token, with a malformed one, or with one this fake did not sign', async () => {
        const other = createFakeCheckout({ partners: [PARTNER] });
        const foreign = (await (
          await other.fetch(`https://x.test${API}/auth/token`, { method: 'POST', headers: headersOf(PARTNER) })
        ).json()) as {
          accessToken: string;
        };
        for (const authorization of [undefined, 'Basic abc', `Bearer ${foreign.accessToken}`, 'Bearer not.a.jwt']) {
          const response = await raw('/auth/me', authorization === undefined ? {} : { headers: { authorization } });
          expect(response.status).toBe(401);
        }
      });

      it('rejects x-partner-id or x-partner-secret on a business endpoint with 400', async () => {
        const { body } = await mint();
        for (const extra of [{ 'x-partner-id': 'partner-1' }, { 'x-partner-secret': 'very-secret-1' }]) {
          const response = await raw('/auth/me', { headers: { authorization: `Bearer ${body.accessToken}`, ...extra } });
          expect(response.status).toBe(400);
        }
      });

      it('answers 404 for an unknown path and 405 for a method other than GET', async () => {
        const { body } = await mint();
        const auth = { authorization: `Bearer ${body.accessToken}` };
        expect((await raw('/nothing/here', { headers: auth })).status).toBe(404);
        expect((await raw('/auth/me', { method: 'DELETE', headers: auth })).status).toBe(405);
      });
    });

    describe('token lifetime', () => {
      it('rejects an expired token with 401, and the client mints a new one', async () => {
        vi.useFakeTimers({ toFake: ['Date'] });
        const { body } = await mint();
        const c = client();
        await c.getMe();
        vi.setSystemTime(Date.now() + 601_000);
        const response = await raw('/auth/me', { headers: { authorization: `Bearer ${body.accessToken}` } });
        expect(response.status).toBe(401);
        expect(((await response.json()) as { message: string }).message).toMatch(/expired/);
        await c.getMe();
        expect(fake.stats.tokensIssued).toBe(3);
      });

      it('rejects revoked tokens; the client retries once with a new token', async () => {
        const c = client();
        await c.getMe();
        const { body } = await mint();
        fake.revokeTokens();
        const response = await raw('/auth/me', { headers: { authorization: `Bearer ${body.accessToken}` } });
        expect(response.status).toBe(401);
        expect(((await response.json()) as { message: string }).message).toMatch(/revoked/);
        await expect(c.getMe()).resolves.toMatchObject({ partnerId: 'partner-1' });
        expect(fake.stats.tokensIssued).toBe(3);
      });

      it("stops honouring a partner's tokens once it is disabled", async () => {
        const c = client();
        await c.getMe();
        fake.updatePartner('partner-1', { enabled: false });
        await expect(c.getMe()).rejects.toBeInstanceOf(AuthenticationError);
      });
    });

    describe('orders advanced by the test', () => {
      it('settles an order after a number of reads, so waitForOrder sees it change', async () => {
        fake.setOrder({ externalId: 'o-2', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-2' } });
        fake.settleOrder('o-2', { afterReads: 2 });
        const c = client();
        const order = await c.waitForOrder('o-2', (o) => o.settlement?.status === 'Settled', { intervalMs: 1, timeoutMs: 10_000 });
        expect(order.settlement).toEqual({ status: 'Settled', tradeId: 't-2' });
        expect(fake.requests.filter((r) => r.path.endsWith('/o-2'))).toHaveLength(3);
      });

      it('completes a withdrawal and cancels a trade', async () => {
        fake.setWithdrawal({ externalId: 'w-2', status: 'Processing' });
        fake.setOrder({ externalId: 'o-3', currency: 'BTC', settlement: { status: 'Pending', tradeId: 't-3' } });
        fake.completeWithdrawal('w-2');
        fake.cancelOrder('o-3');
        const c = client();
        expect((await c.getWithdrawalByExternalId('w-2')).status).toBe('Completed');
        expect((await c.getOrderByExternalId('o-3')).settlement).toEqual({ status: 'Cancelled', tradeId: 't-3' });
      });
    });

    describe('records by kind', () => {
      it('setRecord, updateRecord, setStatus, settle, getRecord and deleteRecord serve what the per-kind methods serve', async () => {
        expect(fake.setRecord('order', { externalId: 'k-o', settlement: { status: 'Pending', tradeId: 't-k' } })).toEqual({
          externalId: 'k-o',
          settlement: { status: 'Pending', tradeId: 't-k' },
        });
        fake.setRecord('withdrawal', { externalId: 'k-w', status: 'Created' });
        fake.updateRecord('order', 'k-o', { settlement: { status: 'Processing' } }, { afterReads: 1 });
        fake.settle('order', 'k-o', { afterReads: 2 });
        fake.setStatus('withdrawal', 'k-w', 'Failed');
        const c = client();
        const seen: (string | undefined)[] = [];
        for (let i = 0; i < 3; i += 1) seen.push((await c.getOrderByExternalId('k-o')).settlement?.status);
        expect(seen).toEqual(['Pending', 'Processing', 'Settled']);
        expect(await c.getWithdrawalByExternalId('k-w')).toEqual({ externalId: 'k-w', status: 'Failed' });
        fake.settle('withdrawal', 'k-w');
        expect(fake.getRecord('withdrawal', 'k-w')).toEqual(fake.getWithdrawal('k-w'));
        expect(fake.getRecord('withdrawal', 'k-w')?.status).toBe('Completed');
        expect(fake.getRecord('order', 'k-o')?.settlement).toEqual({ status: 'Settled', tradeId: 't-k' });
        expect(fake.deleteRecord('withdrawal', 'k-w')).toBe(true);
        expect(fake.deleteRecord('withdrawal', 'k-w')).toBe(false);
        await expect(c.getWithdrawalByExternalId('k-w')).rejects.toBeInstanceOf(NotFoundError);
      });

      it('refuses a kind the table does not have, naming the kinds', () => {
        for (const act of [
          () => fake.setRecord('payout' as never, { externalId: 'p-1' } as never),
          () => fake.updateRecord('Order' as never, 'o-1', {} as never),
          () => fake.settle('' as never, 'o-1'),
          () => fake.getRecord(undefined as never, 'o-1'),
          () => fake.deleteRecord('orders' as never, 'o-1'),
        ]) {
          expect(act).toThrow(TypeError);
          expect(act).toThrow(/kind must be .+, got/);
          expectEveryKind(thrown(act).message, { quoted: true });
        }
        expect(() => fake.setStatus('withdrawal', 'nobody', 'Failed')).toThrow(/^setStatus\(\): no withdrawal with externalId "nobody"/);
        expect(() => fake.setStatus('order', 'o-1', '')).toThrow(/status must be a non-empty string/);
      });
    });

    describe('request log', () => {
      it('masks the secret and the token, keeps the rest', async () => {
        const c = client();
        await c.getMe();
        const token = await c.getAccessToken();
        const [exchange, me] = fake.requests;
        expect(exchange).toMatchObject({ method: 'POST', path: `${API}/auth/token`, status: 200 });
        expect(exchange?.headers['x-partner-id']).toBe('partner-1');
        expect(exchange?.headers['x-partner-secret']).toBe('[redacted]');
        expect(me).toMatchObject({ method: 'GET', path: `${API}/auth/me`, status: 200 });
        expect(me?.headers.authorization).toBe('Bearer [redacted]');
        const dump = JSON.stringify(fake.requests);
        expect(dump).not.toContain(PARTNER.partnerSecret);
        expect(dump).not.toContain(token);
      });
    });

    describe('fault injection', () => {
      // the retries' backoffs and Retry-After waits on the fake clock
      const retrying = () => {
        vi.useFakeTimers(CLIENT_TIMERS);
        const attempts = attemptCount();
        return { reader: (options: CheckoutClientOptions = {}) => client({ ...options, logger: attempts.logger }), attempts };
      };

      it('failNext(1, 503): the client retries and succeeds', async () => {
        fake.failNext(1, 503, { only: 'business' });
        const { reader, attempts } = retrying();
        await expect(acrossRetries(reader().getMe(), attempts)).resolves.toMatchObject({ partnerId: 'partner-1' });
        expect(fake.requests.map((r) => r.status)).toEqual([200, 503, 200]);
        expect(fake.stats.faultsInjected).toBe(1);
      });

      it('failNext(n, 503) beyond the retries: ServerError', async () => {
        fake.failNext(3, 503, { only: 'business' });
        const { reader, attempts } = retrying();
        await expect(acrossRetries(reader({ maxRetries: 2 }).getMe(), attempts)).rejects.toBeInstanceOf(ServerError);
        expect(fake.pendingFaults).toBe(0);
      });

      it('failNext(1, 429, { retryAfter }) sends Retry-After, and the client waits and succeeds', async () => {
        fake.failNext(1, 429, { retryAfter: 0 });
        const response = await raw('/auth/me');
        expect(response.status).toBe(429);
        expect(response.headers.get('retry-after')).toBe('0');
        fake.failNext(1, 429, { retryAfter: 1, only: 'token' });
        const { reader, attempts } = retrying();
        await expect(acrossRetries(reader().getMe(), attempts)).resolves.toBeDefined();
        expect(fake.requests.slice(1).map((r) => r.status)).toEqual([429, 200, 200]);
      });

      it("failNext(n, 'network') drops the connection: ConnectionError, or success after a retry", async () => {
        fake.failNext(1, 'network', { only: 'token' });
        const { reader, attempts } = retrying();
        await expect(acrossRetries(reader().getMe(), attempts)).resolves.toBeDefined();
        fake.failNext(3, 'network');
        await expect(acrossRetries(reader({ maxRetries: 2 }).getOrderByExternalId('x'), attempts)).rejects.toBeInstanceOf(ConnectionError);
      });

      it('only: a matcher aims a fault at one record; other requests pass and leave it waiting', async () => {
        fake.setOrder({ externalId: 'o-1', settlement: { status: 'Pending', tradeId: 't-1' } });
        fake.setOrder({ externalId: 'o/2', settlement: { status: 'Pending', tradeId: 't-2' } });
        fake.setWithdrawal({ externalId: 'o-1', status: 'Processing' });
        fake.failNext(1, 503, { only: { kind: 'order', externalId: 'o-1' } });
        const reader = client({ maxRetries: 0 });
        await expect(reader.getOrderByExternalId('o/2')).resolves.toMatchObject({ externalId: 'o/2' });
        await expect(reader.getWithdrawalByExternalId('o-1')).resolves.toMatchObject({ externalId: 'o-1' });
        await expect(reader.getMe()).resolves.toBeDefined();
        expect(fake.pendingFaults).toBe(1);
        await expect(reader.getOrderByExternalId('o-1')).rejects.toMatchObject({ name: 'ServerError', status: 503 });
        expect(fake.pendingFaults).toBe(0);
        await expect(reader.getOrderByExternalId('o-1')).resolves.toMatchObject({ externalId: 'o-1' });
      });

      it('only: a path (string below the API base, or RegExp), a method, a kind, or a predicate', async () => {
        fake.setOrder({ externalId: 'o-1', settlement: { status: 'Pending', tradeId: 't-1' } });
        fake.failNext(1, 500, { only: { path: '/orders/by-external-id/o-1' } });
        fake.failNext(1, 502, { only: { method: 'post', path: /\/auth\/token$/ } });
        fake.failNext(1, 504, { only: { kind: 'me' } });
        fake.failNext(1, 418, { only: (request) => request.kind === 'withdrawal' && request.externalId === 'w-9' });
        expect((await raw('/withdrawals/by-external-id/w-1')).status).toBe(401); // no token: passes every fault
        expect((await raw('/withdrawals/by-external-id/w-9')).status).toBe(418);
        expect((await raw('/auth/me')).status).toBe(504);
        expect((await raw('/orders/by-external-id/o-1')).status).toBe(500);
        expect((await mint()).response.status).toBe(502);
        expect(fake.pendingFaults).toBe(0);
      });

      it.each([
        [{ kind: 'orders' }, /only\.kind must be/],
        [{ kind: 'payout' }, /only\.kind must be "token", "me", .+, got "payout"/],
        [{ externalId: '' }, /only\.externalId must be a non-empty string/],
        [{ kind: 'me', externalId: 'o-1' }, /only\.externalId names .+, not a "me" request/],
        [{ path: 'orders' }, /only\.path must be a RegExp or a string starting with "\/"/],
        [{ method: 1 }, /only\.method must be/],
        [{ externalID: 'o-1' }, /unknown field "externalID"/],
        ['orders', /only must be 'any', 'token', 'business', a matcher/],
      ])('only %j is refused with a TypeError', (only, message) => {
        expect(() => fake.failNext(1, 503, { only } as never)).toThrow(TypeError);
        expect(() => fake.failNext(1, 503, { only } as never)).toThrow(message);
        expect(fake.pendingFaults).toBe(0);
      });

      it('a matcher refused for its kind names every kind of the table', () => {
        expectEveryKind(thrown(() => fake.failNext(1, 503, { only: { kind: 'payout' } } as never)).message, { quoted: true });
        expectEveryKind(thrown(() => fake.failNext(1, 503, { only: { kind: 'me', externalId: 'o-1' } } as never)).message);
      });

      it('setDelay holds responses back past the client timeout', async () => {
        fake.setDelay(2_000);
        vi.useFakeTimers(CLIENT_TIMERS); // the client's timeout and the fake's delay
        const timedOut = expect(client({ timeoutMs: 50, maxRetries: 0 }).getMe()).rejects.toBeInstanceOf(TimeoutError);
        await reached(() => vi.getTimerCount() > 0, 'the call timed');
        await vi.advanceTimersByTimeAsync(50);
        await settled(timedOut, 'the call did not end at its timeoutMs');
        fake.setDelay(0);
        await expect(client().getMe()).resolves.toBeDefined();
      });
    });
  });
}

function headersOf(partner: { partnerId: string; partnerSecret: string }): Record<string, string> {
  return { 'x-partner-id': partner.partnerId, 'x-partner-secret': partner.partnerSecret };
}
