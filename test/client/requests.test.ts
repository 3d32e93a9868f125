import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import {
  ApiError,
  AuthenticationError,
  CheckoutClient,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  WaitTimeoutError,
} from 'checkout-partner-sdk';
import { CLIENT_TIMERS, attemptCount, reached, settled } from '../helpers/fake-time.js';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout, order } from './helpers.js';

const { server, state } = mockCheckout();
const newClient = (extra: object = {}) =>
  new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET, ...extra });
const businessCalls = () => state.seen.filter((r) => !r.path.endsWith('/auth/token'));
const ORDER_PATH = `${API}/orders/by-external-id/:id`;
afterEach(() => vi.useRealTimers());

describe('business requests', () => {
  it('read the three status endpoints with the Bearer token and never the partner headers', async () => {
    server.use(
      http.get(`${API}/auth/me`, () => HttpResponse.json({ partnerId: PARTNER_ID, name: 'Acme' })),
      http.get(ORDER_PATH, ({ params }) => HttpResponse.json(order(String(params.id)))),
      http.get(`${API}/withdrawals/by-external-id/:id`, ({ params }) => HttpResponse.json({ externalId: params.id, status: 'Completed' })),
    );
    const client = newClient();
    expect(await client.getMe()).toEqual({ partnerId: PARTNER_ID, name: 'Acme' });
    expect(await client.getOrderByExternalId('o-1')).toEqual(order('o-1'));
    expect(await client.getWithdrawalByExternalId('w-1')).toEqual({ externalId: 'w-1', status: 'Completed' });
    const calls = businessCalls();
    expect(calls.map((c) => c.path)).toEqual([
      '/api/v1/partner-api/auth/me',
      '/api/v1/partner-api/orders/by-external-id/o-1',
      '/api/v1/partner-api/withdrawals/by-external-id/w-1',
    ]);
    for (const call of calls) {
      expect(call.headers.authorization).toBe('Bearer tok-1');
      expect(call.headers).not.toHaveProperty('x-partner-id');
      expect(call.headers).not.toHaveProperty('x-partner-secret');
    }
  });

  it('keeps every field the service sends, known or not', async () => {
    const body = { externalId: 'o-1', currency: 'BRZ', settlement: { status: 'Paid', tradeId: null, at: 1 }, amount: '10.00', extra: [1] };
    server.use(http.get(ORDER_PATH, () => HttpResponse.json(body)));
    expect(await newClient().getOrderByExternalId('o-1')).toEqual(body);
  });

  it('accepts an order with a null settlement or none at all', async () => {
    server.use(
      http.get(ORDER_PATH, ({ params }) =>
        HttpResponse.json(params.id === 'a' ? { externalId: 'a', settlement: null } : { externalId: 'b' }),
      ),
    );
    const client = newClient();
    expect(await client.getOrderByExternalId('a')).toEqual({ externalId: 'a', settlement: null });
    expect(await client.getOrderByExternalId('b')).toEqual({ externalId: 'b' });
  });
});

describe('401 from a business endpoint', () => {
  it('drops the token, mints one new token and retries once', async () => {
    server.use(
      http.get(ORDER_PATH, ({ request }) =>
        request.headers.get('authorization') === 'Bearer tok-1' ? new HttpResponse(null, { status: 401 }) : HttpResponse.json(order('o-1')),
      ),
    );
    const client = newClient();
    expect(await client.getOrderByExternalId('o-1')).toEqual(order('o-1'));
    expect(state.exchanges).toBe(2);
    expect(businessCalls().map((c) => c.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
    expect(await client.getAccessToken()).toBe('tok-2');
  });

  it('rejects with AuthenticationError on a second 401, without looping', async () => {
    server.use(http.get(ORDER_PATH, () => HttpResponse.json({ message: 'token revoked' }, { status: 401 })));
    const error = await newClient()
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, body: { message: 'token revoked' } });
    expect(businessCalls()).toHaveLength(2);
    expect(state.exchanges).toBe(2);
  });

  it('re-mints once for many concurrent calls that got a 401 with the same token', async () => {
    server.use(
      http.get(ORDER_PATH, ({ request, params }) =>
        request.headers.get('authorization') === 'Bearer tok-1'
          ? new HttpResponse(null, { status: 401 })
          : HttpResponse.json(order(String(params.id))),
      ),
    );
    const client = newClient();
    await Promise.all(Array.from({ length: 50 }, (_, i) => client.getOrderByExternalId(`o-${i}`)));
    expect(state.exchanges).toBe(2);
  });
});

describe('status mapping', () => {
  it.each([
    [400, ApiError, 'ApiError'],
    [403, PermissionDeniedError, 'PermissionDeniedError'],
    [404, NotFoundError, 'NotFoundError'],
    [409, ApiError, 'ApiError'],
    [422, ApiError, 'ApiError'],
    [429, RateLimitError, 'RateLimitError'],
    [500, ServerError, 'ServerError'],
    [502, ServerError, 'ServerError'],
    [503, ServerError, 'ServerError'],
    [504, ServerError, 'ServerError'],
  ])('maps %i to %o with status, headers, body and requestId', async (status, type, name) => {
    server.use(
      http.get(ORDER_PATH, () =>
        HttpResponse.json({ message: `failed with ${status}` }, { status, headers: { 'x-request-id': 'req-42', 'retry-after': '0' } }),
      ),
    );
    const error = await newClient()
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ name, status, requestId: 'req-42', body: { message: `failed with ${status}` } });
    expect((error as ApiError).headers.get('x-request-id')).toBe('req-42');
    expect((error as Error).message).toBe(`${status} from GET /orders/by-external-id/o-1: failed with ${status}`);
  });

  it('keeps a text error body as text', async () => {
    server.use(http.get(ORDER_PATH, () => new HttpResponse('Not here', { status: 404, headers: { 'content-type': 'text/plain' } })));
    await expect(newClient().getOrderByExternalId('o-1')).rejects.toMatchObject({ body: 'Not here' });
  });

  it('gives the Retry-After of a final 429', async () => {
    server.use(http.get(ORDER_PATH, () => new HttpResponse(null, { status: 429, headers: { 'retry-after': '0' } })));
    const error = (await newClient({ maxRetries: 0 })
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e)) as RateLimitError;
    expect(error.retryAfterMs).toBe(0);
  });
});

describe('retries', () => {
  const failing = (statuses: number[], headers: Record<string, string> = { 'retry-after': '0' }) => {
    let calls = 0;
    server.use(
      http.get(ORDER_PATH, () => {
        const status = statuses[calls];
        calls += 1;
        return status === undefined ? HttpResponse.json(order('o-1')) : new HttpResponse(null, { status, headers });
      }),
    );
    return () => calls;
  };

  it.each([408, 429, 500, 502, 503, 504])('retries a GET after %i and succeeds', async (status) => {
    const calls = failing([status, status]);
    expect(await newClient().getOrderByExternalId('o-1')).toEqual(order('o-1'));
    expect(calls()).toBe(3);
  });

  it('every attempt of a retried read carries the token and the User-Agent, the token cached or not', async () => {
    const client = newClient();
    // the first read waits for the exchange; the second has its token and a free turn at once
    for (const round of [1, 2]) {
      failing([503, 503]);
      expect(await client.getOrderByExternalId('o-1')).toEqual(order('o-1'));
      const attempts = businessCalls().slice(3 * (round - 1));
      expect(attempts.map((r) => [r.headers.authorization, r.headers['user-agent']?.startsWith('checkout-partner-sdk/')])).toEqual(
        Array.from({ length: 3 }, () => ['Bearer tok-1', true]),
      );
    }
    expect(state.exchanges).toBe(1);
  });

  it('gives up after maxRetries + 1 attempts', async () => {
    const calls = failing([503, 503, 503, 503]);
    await expect(newClient({ maxRetries: 2 }).getOrderByExternalId('o-1')).rejects.toBeInstanceOf(ServerError);
    expect(calls()).toBe(3);
  });

  it('does not retry when maxRetries is 0', async () => {
    const calls = failing([503]);
    await expect(newClient({ maxRetries: 0 }).getOrderByExternalId('o-1')).rejects.toBeInstanceOf(ServerError);
    expect(calls()).toBe(1);
  });

  it.each([400, 403, 404, 409, 422])('does not retry %i', async (status) => {
    const calls = failing([status]);
    await expect(newClient().getOrderByExternalId('o-1')).rejects.toBeInstanceOf(ApiError);
    expect(calls()).toBe(1);
  });

  it('retries a GET after a network error', async () => {
    let calls = 0;
    server.use(
      http.get(ORDER_PATH, () => {
        calls += 1;
        return calls === 1 ? HttpResponse.error() : HttpResponse.json(order('o-1'));
      }),
    );
    vi.useFakeTimers(CLIENT_TIMERS);
    const attempts = attemptCount();
    const pending = newClient({ logger: attempts.logger }).getOrderByExternalId('o-1');
    await reached(() => attempts.ended() === 2, 'the exchange and the first attempt ended');
    await vi.advanceTimersByTimeAsync(300); // the first retry's backoff, at most
    expect(await settled(pending, 'the read was not retried')).toEqual(order('o-1'));
    expect(calls).toBe(2);
  });

  it('honours Retry-After in seconds', async () => {
    const calls = failing([503], { 'retry-after': '1' });
    vi.useFakeTimers(CLIENT_TIMERS);
    const start = performance.now();
    const pending = newClient().getOrderByExternalId('o-1');
    await reached(() => calls() === 1, 'the first attempt sent');
    await vi.advanceTimersByTimeAsync(950);
    expect(calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(50);
    await settled(pending, 'the read was not retried after Retry-After');
    expect(calls()).toBe(2);
    expect(performance.now() - start).toBeGreaterThanOrEqual(950);
  });

  it('honours Retry-After as an HTTP date', async () => {
    vi.useFakeTimers({ toFake: [...CLIENT_TIMERS.toFake, 'Date'], now: new Date('2026-01-01T00:00:00Z') });
    const calls = failing([429], { 'retry-after': new Date(Date.now() + 2000).toUTCString() });
    const start = performance.now();
    const pending = newClient().getOrderByExternalId('o-1');
    await reached(() => calls() === 1, 'the first attempt sent');
    await vi.advanceTimersByTimeAsync(1_900);
    expect(calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    await settled(pending, 'the read was not retried at the Retry-After date');
    expect(calls()).toBe(2);
    expect(performance.now() - start).toBeGreaterThanOrEqual(900);
  });
});

describe('timeouts and aborts', () => {
  const hang = () => {
    let calls = 0;
    server.use(
      http.get(ORDER_PATH, async ({ request }) => {
        calls += 1;
        await new Promise((resolve) => request.signal.addEventListener('abort', resolve));
        return HttpResponse.json(order('o-1'));
      }),
    );
    return () => calls;
  };

  it('rejects with TimeoutError after every attempt ran past timeoutMs', async () => {
    const calls = hang();
    vi.useFakeTimers(CLIENT_TIMERS);
    const attempts = attemptCount();
    const pending = newClient({ timeoutMs: 50, maxRetries: 1, logger: attempts.logger })
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    await reached(() => calls() === 1, 'the first attempt sent');
    await vi.advanceTimersByTimeAsync(50);
    await reached(() => attempts.ended() === 2, 'the first attempt timed out'); // the exchange's, then the read's
    await vi.advanceTimersByTimeAsync(300); // the retry's backoff, at most
    await reached(() => calls() === 2, 'the retry sent');
    await vi.advanceTimersByTimeAsync(50);
    const error = await settled(pending, 'the retry did not time out');
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ name: 'TimeoutError', status: undefined });
    expect(calls()).toBe(2);
  });

  it('lets a call override timeoutMs', async () => {
    const calls = hang();
    vi.useFakeTimers(CLIENT_TIMERS);
    const pending = newClient({ maxRetries: 0 }).getOrderByExternalId('o-1', { timeoutMs: 30 });
    const outcome = expect(pending).rejects.toBeInstanceOf(TimeoutError);
    await reached(() => calls() === 1, 'the read sent');
    await vi.advanceTimersByTimeAsync(30);
    await settled(outcome, 'the call did not end at its timeoutMs');
  });

  it('rejects with the signal reason when aborted in flight, and does not retry', async () => {
    const calls = hang();
    const controller = new AbortController();
    vi.useFakeTimers(CLIENT_TIMERS); // the slot's hold after the abort, never reached
    const pending = newClient().getOrderByExternalId('o-1', { signal: controller.signal });
    await reached(() => calls() === 1, 'the read in flight');
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    expect(calls()).toBe(1);
  });

  it('rejects with a custom abort reason', async () => {
    const calls = hang();
    const reason = new Error('shutting down');
    const controller = new AbortController();
    vi.useFakeTimers(CLIENT_TIMERS); // the slot's hold after the abort, never reached
    const pending = newClient().getOrderByExternalId('o-1', { signal: controller.signal });
    await reached(() => calls() === 1, 'the read in flight');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const calls = hang();
    await expect(newClient().getOrderByExternalId('o-1', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls()).toBe(0);
    expect(state.exchanges).toBe(0);
  });
});

describe('external ids', () => {
  it.each([
    ['a/b', 'a%2Fb'],
    ['../auth/token', '..%2Fauth%2Ftoken'],
    ['a b', 'a%20b'],
    ['pedido-ção-😀', 'pedido-%C3%A7%C3%A3o-%F0%9F%98%80'],
    ['100%', '100%25'],
    ['?x=1#frag', '%3Fx%3D1%23frag'],
    ['...', '...'],
  ])('sends %j as one encoded path segment', async (id, encoded) => {
    server.use(http.get(ORDER_PATH, () => HttpResponse.json(order(id))));
    await newClient().getOrderByExternalId(id);
    const [call] = businessCalls();
    expect(call?.path).toBe(`/api/v1/partner-api/orders/by-external-id/${encoded}`);
  });

  it.each([[''], ['.'], ['..'], ['\uD800'], [undefined], [null], [42], [{}]])('rejects %j before any request', async (id) => {
    const client = newClient();
    await expect(client.getOrderByExternalId(id as string)).rejects.toBeInstanceOf(TypeError);
    await expect(client.getWithdrawalByExternalId(id as string)).rejects.toBeInstanceOf(TypeError);
    await expect(client.waitForOrder(id as string, () => true)).rejects.toBeInstanceOf(TypeError);
    expect(state.seen).toHaveLength(0);
  });

  it('rejects bad per-call options before any request', async () => {
    const client = newClient();
    await expect(client.getOrderByExternalId('o-1', { timeoutMs: -1 })).rejects.toBeInstanceOf(TypeError);
    await expect(client.getOrderByExternalId('o-1', { signal: 'x' as never })).rejects.toBeInstanceOf(TypeError);
    expect(state.seen).toHaveLength(0);
  });
});

describe('malformed 2xx bodies', () => {
  it.each([
    ['HTML', () => new HttpResponse('<html>oops</html>', { status: 200, headers: { 'content-type': 'text/html' } }), 'invalid_json'],
    ['an empty body', () => new HttpResponse(null, { status: 200 }), undefined],
    ['null', () => HttpResponse.json(null), undefined],
    ['an array', () => HttpResponse.json([order('o-1')]), undefined],
    ['no externalId', () => HttpResponse.json({ currency: 'BRZ' }), undefined],
    ['a numeric status', () => HttpResponse.json({ externalId: 'o-1', settlement: { status: 3 } }), undefined],
  ])('reject with ResponseValidationError (%s)', async (_name, respond, code) => {
    server.use(http.get(ORDER_PATH, respond));
    const error = await newClient()
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    const issues = (error as ResponseValidationError).issues;
    expect(issues.length).toBeGreaterThan(0);
    if (code) expect(issues[0]?.code).toBe(code);
    expect((error as ResponseValidationError).status).toBe(200);
  });

  it('names the path of the first issue', async () => {
    server.use(http.get(ORDER_PATH, () => HttpResponse.json({ externalId: 'o-1', settlement: { status: 3 } })));
    await expect(newClient().getOrderByExternalId('o-1')).rejects.toThrow(/settlement\.status/);
  });

  it('does not retry a malformed body', async () => {
    let calls = 0;
    server.use(
      http.get(ORDER_PATH, () => {
        calls += 1;
        return HttpResponse.json({});
      }),
    );
    await expect(newClient().getOrderByExternalId('o-1')).rejects.toBeInstanceOf(ResponseValidationError);
    expect(calls).toBe(1);
  });
});

describe('request()', () => {
  it('sends searchParams and a JSON body, parses with a schema', async () => {
    let received: unknown;
    server.use(
      http.post(`${API}/orders/o-1/payment`, async ({ request }) => {
        received = {
          query: new URL(request.url).searchParams.get('dryRun'),
          body: await request.json(),
          auth: request.headers.get('authorization'),
        };
        return HttpResponse.json({ tradeId: 't-9', settlement: { tradeId: 't-9' } });
      }),
    );
    const schema = z.object({ tradeId: z.nullable(z.string()) });
    const result = await newClient().request('POST', '/orders/o-1/payment', {
      json: { amount: 10 },
      searchParams: { dryRun: true },
      schema,
    });
    expect(result).toEqual({ tradeId: 't-9' });
    expect(received).toEqual({ query: 'true', body: { amount: 10 }, auth: 'Bearer tok-1' });
    expect(state.seen.at(-1)?.headers).not.toHaveProperty('x-partner-secret');
  });

  it('returns the parsed JSON without a schema, and accepts a path without a leading slash', async () => {
    server.use(http.get(`${API}/orders/by-trade-id/t-1`, () => HttpResponse.json({ any: 'thing' })));
    expect(await newClient().request('get', 'orders/by-trade-id/t-1')).toEqual({ any: 'thing' });
  });

  it('rejects a body the schema refuses', async () => {
    server.use(http.get(`${API}/x`, () => HttpResponse.json({ tradeId: 5 })));
    const schema = z.object({ tradeId: z.string() });
    await expect(newClient().request('GET', '/x', { schema })).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('retries GET but never a non-GET request', async () => {
    let posts = 0;
    server.use(
      http.post(`${API}/orders/o-1/payment`, () => {
        posts += 1;
        return new HttpResponse(null, { status: 503, headers: { 'retry-after': '0' } });
      }),
    );
    await expect(newClient().request('POST', '/orders/o-1/payment', { json: {} })).rejects.toBeInstanceOf(ServerError);
    expect(posts).toBe(1);
    let gets = 0;
    server.use(
      http.get(`${API}/x`, () => {
        gets += 1;
        return new HttpResponse(null, { status: 503, headers: { 'retry-after': '0' } });
      }),
    );
    await expect(newClient().request('GET', '/x')).rejects.toBeInstanceOf(ServerError);
    expect(gets).toBe(3);
  });

  it('re-mints once on a 401 for a non-GET request too', async () => {
    server.use(
      http.post(`${API}/p`, ({ request }) =>
        request.headers.get('authorization') === 'Bearer tok-1' ? new HttpResponse(null, { status: 401 }) : HttpResponse.json({ ok: true }),
      ),
    );
    expect(await newClient().request('POST', '/p')).toEqual({ ok: true });
  });

  it.each([
    ['GET', 'https://evil.test/steal'],
    ['GET', '//evil.test/steal'],
    // dot segments would climb out of the API base, taking the Bearer token to another path of the origin
    ['GET', '/../../../admin/users'],
    ['GET', 'orders/../../../admin'],
    ['GET', '/%2e%2E/%2E./admin'],
    ['GET', '/.%2e\\admin'],
    ['GET', '/./x'],
    ['GET', ''],
    ['GET', 5],
    ['', '/x'],
    ['GET /x', '/x'],
  ])('rejects method %j and path %j with a TypeError before any request', async (method, path) => {
    await expect(newClient().request(method, path as string)).rejects.toBeInstanceOf(TypeError);
    expect(state.seen).toHaveLength(0);
  });

  it('rejects a schema without safeParse', async () => {
    await expect(newClient().request('GET', '/x', { schema: {} as never })).rejects.toBeInstanceOf(TypeError);
  });
});

describe('waitForOrder / waitForWithdrawal', () => {
  it('polls until the predicate holds and resolves with that record', async () => {
    let reads = 0;
    server.use(
      http.get(ORDER_PATH, () => {
        reads += 1;
        return HttpResponse.json(order('o-1', { settlement: { status: reads >= 3 ? 'Settled' : 'Pending', tradeId: 't-1' } }));
      }),
    );
    vi.useFakeTimers(CLIENT_TIMERS);
    let checked = 0;
    const pending = newClient().waitForOrder(
      'o-1',
      (o) => {
        checked += 1;
        return o.settlement?.status === 'Settled';
      },
      { intervalMs: 10 },
    );
    for (const read of [1, 2]) {
      await reached(() => checked === read, `read ${read} answered`);
      await vi.advanceTimersByTimeAsync(10);
    }
    const result = await settled(pending, 'the third read did not end the wait');
    expect(result.settlement?.status).toBe('Settled');
    expect(reads).toBe(3);
  });

  it('rejects with WaitTimeoutError holding the last record', async () => {
    server.use(http.get(`${API}/withdrawals/by-external-id/:id`, () => HttpResponse.json({ externalId: 'w-1', status: 'Processing' })));
    vi.useFakeTimers(CLIENT_TIMERS);
    let checked = 0;
    const pending = newClient()
      .waitForWithdrawal(
        'w-1',
        (w) => {
          checked += 1;
          return w.status === 'Completed';
        },
        { timeoutMs: 80, intervalMs: 10 },
      )
      .catch((e: unknown) => e);
    await reached(() => checked === 1, 'the first read answered');
    await vi.advanceTimersByTimeAsync(80);
    const error = await settled(pending, 'the wait did not end at timeoutMs');
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ name: 'WaitTimeoutError', lastRecord: { externalId: 'w-1', status: 'Processing' } });
  });

  it('times out during a hanging read too', async () => {
    server.use(
      http.get(ORDER_PATH, async ({ request }) => {
        await new Promise((r) => request.signal.addEventListener('abort', r));
        return HttpResponse.json({});
      }),
    );
    vi.useFakeTimers(CLIENT_TIMERS);
    const outcome = expect(newClient().waitForOrder('o-1', () => true, { timeoutMs: 50 })).rejects.toBeInstanceOf(WaitTimeoutError);
    await reached(() => state.seen.some((r) => r.path.includes('/orders/')), 'the read sent');
    await vi.advanceTimersByTimeAsync(50);
    await settled(outcome, 'the wait did not end at timeoutMs');
  });

  it('rethrows a 404 at once', async () => {
    server.use(http.get(ORDER_PATH, () => new HttpResponse(null, { status: 404 })));
    await expect(newClient().waitForOrder('missing', () => true, { timeoutMs: 5_000 })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('stops with the signal reason when aborted', async () => {
    server.use(http.get(ORDER_PATH, () => HttpResponse.json(order('o-1'))));
    const controller = new AbortController();
    vi.useFakeTimers(CLIENT_TIMERS);
    setTimeout(() => controller.abort(), 30);
    let checked = 0;
    const until = () => {
      checked += 1;
      return false;
    };
    const outcome = expect(newClient().waitForOrder('o-1', until, { intervalMs: 5, signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    await reached(() => checked === 1, 'the first read answered');
    await vi.advanceTimersByTimeAsync(30);
    await settled(outcome, 'the wait did not stop at the abort');
  });

  it.each([[{ timeoutMs: 0 }], [{ intervalMs: -1 }], [{ signal: {} }]])('rejects bad options %o with a TypeError', async (options) => {
    await expect(newClient().waitForOrder('o-1', () => true, options as never)).rejects.toBeInstanceOf(TypeError);
  });

  it('rejects a missing predicate with a TypeError', async () => {
    await expect(newClient().waitForOrder('o-1', undefined as never)).rejects.toBeInstanceOf(TypeError);
  });
});
