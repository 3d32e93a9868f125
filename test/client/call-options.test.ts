import { readFileSync } from 'node:fs';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { CheckoutClient, ServerError } from 'checkout-partner-sdk';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout, order } from './helpers.js';

// Per-call headers, maxRetries and idempotencyKey, and the User-Agent (issue 11, item 5).

const { server, state } = mockCheckout();
const newClient = (extra: object = {}) =>
  new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET, ...extra });
const ORDER_PATH = `${API}/orders/by-external-id/:id`;
const PAYMENT_PATH = `${API}/orders/o-1/payment`;
const businessCalls = () => state.seen.filter((r) => !r.path.endsWith('/auth/token'));
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** Answers `statuses` in turn, then 200 with `body`. */
function answers(method: 'get' | 'post', path: string, statuses: number[], body: object) {
  let calls = 0;
  server.use(
    http[method](path, () => {
      const status = statuses[calls];
      calls += 1;
      return status === undefined ? HttpResponse.json(body) : new HttpResponse(null, { status, headers: { 'retry-after': '0' } });
    }),
  );
  return () => calls;
}

describe('User-Agent', () => {
  it('is checkout-partner-sdk/<version> node/<version> on the exchange and on every request', async () => {
    answers('get', ORDER_PATH, [], order('o-1'));
    await newClient().getOrderByExternalId('o-1');
    const expected = `checkout-partner-sdk/${version} node/${process.versions.node}`;
    expect(state.seen.map((r) => r.headers['user-agent'])).toEqual([expected, expected]);
  });

  it("is the call's own when it sets one, on its retry too; the token exchange keeps the SDK's", async () => {
    answers('get', ORDER_PATH, [503], order('o-1'));
    await newClient().getOrderByExternalId('o-1', { headers: { 'User-Agent': 'partner-app/2.0' } });
    const expected = `checkout-partner-sdk/${version} node/${process.versions.node}`;
    expect(state.seen.map((r) => r.headers['user-agent'])).toEqual([expected, 'partner-app/2.0', 'partner-app/2.0']);
  });
});

describe('per-call headers', () => {
  it('are sent with the call, not with the token exchange', async () => {
    answers('get', ORDER_PATH, [], order('o-1'));
    await newClient().getOrderByExternalId('o-1', { headers: { 'X-Correlation-Id': 'corr-1' } });
    expect(businessCalls()[0]?.headers['x-correlation-id']).toBe('corr-1');
    expect(businessCalls()[0]?.headers.authorization).toBe('Bearer tok-1');
    expect(state.seen[0]?.headers['x-correlation-id']).toBeUndefined();
  });

  it.each([
    [{ Authorization: 'Bearer other' }, /authorization is set by the client/],
    [{ 'x-partner-secret': 'x' }, /x-partner-secret is set by the client/],
    [{ 'Idempotency-Key': 'k' }, /use the idempotencyKey option/],
    [{ 'bad name': 'x' }, /not a valid header name/],
    // connection-level headers: fetch manages them (undici refuses most with a network-level error after the exchange)
    [{ 'Transfer-Encoding': 'chunked' }, /transfer-encoding is set by the client/],
    [{ Connection: 'close' }, /connection is set by the client/],
    [{ 'keep-alive': 'timeout=5' }, /keep-alive is set by the client/],
    [{ Upgrade: 'websocket' }, /upgrade is set by the client/],
    [{ Expect: '100-continue' }, /expect is set by the client/],
    [{ Host: 'evil.example' }, /host is set by the client/],
    [{ 'Content-Length': '0' }, /content-length is set by the client/],
    [{ 'x-note': 'line\r\nX-Injected: value-that-stays-private' }, /x-note must be a string without control characters/],
    [{ 'x-note': 42 }, /x-note must be a string/],
    ['x-note: 1', /headers must be an object/],
  ])('refuses %j with a TypeError before sending anything', async (headers, message) => {
    const client = newClient();
    const error = await client.getOrderByExternalId('o-1', { headers: headers as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('value-that-stays-private');
    expect(state.seen).toEqual([]);
  });
});

describe('per-call maxRetries', () => {
  it('overrides the client option, up and down', async () => {
    const calls = answers('get', ORDER_PATH, [503, 503, 503, 503], order('o-1'));
    expect(await newClient({ maxRetries: 0 }).getOrderByExternalId('o-1', { maxRetries: 4 })).toEqual(order('o-1'));
    expect(calls()).toBe(5);
    const fewer = answers('get', ORDER_PATH, [503, 503], order('o-1'));
    await expect(newClient().getOrderByExternalId('o-1', { maxRetries: 0 })).rejects.toBeInstanceOf(ServerError);
    expect(fewer()).toBe(1);
  });

  it.each([-1, 1.5, '2'])('refuses maxRetries %j with a TypeError', async (maxRetries) => {
    await expect(newClient().getMe({ maxRetries: maxRetries as never })).rejects.toThrow(/maxRetries must be a whole number/);
  });
});

describe('idempotencyKey', () => {
  it('is sent as Idempotency-Key, and a POST carrying one is retried like a GET', async () => {
    const calls = answers('post', PAYMENT_PATH, [503, 502], { tradeId: 't-1' });
    const result = await newClient().request('POST', '/orders/o-1/payment', {
      json: { currency: 'USDT' },
      idempotencyKey: 'pay-o-1-attempt-1',
    });
    expect(result).toEqual({ tradeId: 't-1' });
    expect(calls()).toBe(3);
    expect(businessCalls().map((r) => r.headers['idempotency-key'])).toEqual([
      'pay-o-1-attempt-1',
      'pay-o-1-attempt-1',
      'pay-o-1-attempt-1',
    ]);
  });

  it('without one, a POST is sent once', async () => {
    const calls = answers('post', PAYMENT_PATH, [503], { tradeId: 't-1' });
    await expect(newClient().request('POST', '/orders/o-1/payment', { json: {} })).rejects.toBeInstanceOf(ServerError);
    expect(calls()).toBe(1);
  });

  it.each(['', 'has space', 'x'.repeat(256), 42])('refuses idempotencyKey %j with a TypeError', async (key) => {
    await expect(newClient().request('POST', '/orders/o-1/payment', { idempotencyKey: key as never })).rejects.toThrow(
      /idempotencyKey must be a string of 1 to 255 visible ASCII/,
    );
    expect(state.seen).toEqual([]);
  });
});
