import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  CheckoutClient,
  ConnectionError,
  NotFoundError,
  QueueFullError,
  RateLimitError,
  ServerError,
  TimeoutError,
} from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installOtel, parentOf, points, total, type Otel } from './otel.js';

// Client calls as OpenTelemetry sees them, with the real JS SDK registered globally (as the Node SDK
// does) and the fake checkout service on a real local server.

const partner = { partnerId: 'p-otel', partnerSecret: 'otel-partner-secret-81f3' };
const fake = createFakeCheckout({ partners: [partner] });
let url = '';
let port = 0;
let close: () => Promise<void>;
let otel: Otel;

beforeAll(async () => {
  ({ url, close } = await fake.listen());
  port = Number(new URL(url).port);
});
afterAll(() => close());
beforeEach(() => {
  fake.reset?.();
  fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
  otel = installOtel();
});
afterEach(() => otel.uninstall());

const newClient = (extra: object = {}) => new CheckoutClient({ baseUrl: url, ...partner, ...extra });
const ORDER = 'GET /orders/by-external-id/{externalId}';
const TOKEN = 'POST /auth/token';

describe('a client call', () => {
  it('is a CLIENT span named by its route template, a child of the application span, with the semconv attributes', async () => {
    const client = newClient();
    await otel.tracer.startActiveSpan('app', async (app) => {
      await client.getOrderByExternalId('o-1');
      app.end();
    });
    const app = otel.span('app');
    const call = otel.span(ORDER);
    expect(call.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(call)).toBe(app.spanContext().spanId);
    expect(call.spanContext().traceId).toBe(app.spanContext().traceId);
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    const received = fake.requests.find((r) => r.path.endsWith('/orders/by-external-id/o-1'));
    expect(call.attributes).toEqual({
      'http.request.method': 'GET',
      'url.template': '/orders/by-external-id/{externalId}',
      'url.full': `${url}/api/v1/partner-api/orders/by-external-id/o-1`,
      'server.address': '127.0.0.1',
      'server.port': port,
      'http.response.status_code': 200,
      'checkout.attempts': 1,
      'checkout.request_id': received?.headers['x-request-id'] ?? expect.any(String),
      'checkout.token.waited': true,
    });
  });

  it('sends traceparent, seen by the real server: the call span for the read, the exchange span for POST /auth/token', async () => {
    const client = newClient();
    await otel.tracer.startActiveSpan('app', async (app) => {
      await client.getOrderByExternalId('o-1');
      app.end();
    });
    const call = otel.span(ORDER);
    const exchange = otel.span(TOKEN);
    const traceId = call.spanContext().traceId;
    const read = fake.requests.find((r) => r.path.endsWith('/orders/by-external-id/o-1'));
    const token = fake.requests.find((r) => r.path.endsWith('/auth/token'));
    expect(read?.headers['traceparent']).toBe(`00-${traceId}-${call.spanContext().spanId}-01`);
    expect(token?.headers['traceparent']).toBe(`00-${traceId}-${exchange.spanContext().spanId}-01`);
  });

  it('has a token exchange span: a CLIENT child of the call that started it; a call that waited for it links to it', async () => {
    const client = newClient();
    await Promise.all([
      otel.tracer.startActiveSpan('first', async (span) => {
        await client.getOrderByExternalId('o-1');
        span.end();
      }),
      otel.tracer.startActiveSpan('second', async (span) => {
        await client.getMe();
        span.end();
      }),
    ]);
    const exchange = otel.span(TOKEN);
    const first = otel.span(ORDER);
    const second = otel.span('GET /auth/me');
    expect(exchange.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(exchange)).toBe(first.spanContext().spanId);
    expect(exchange.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.template': '/auth/token',
      'http.response.status_code': 200,
      'checkout.attempts': 1,
    });
    expect(first.links).toEqual([]);
    expect(second.attributes['checkout.token.waited']).toBe(true);
    expect(second.links.map((link) => link.context.spanId)).toEqual([exchange.spanContext().spanId]);
    const metrics = await otel.metrics();
    expect(total(metrics.get('checkout.client.token.exchanges'))).toBe(1);
    expect(total(metrics.get('http.client.request.duration'), { 'url.template': '/auth/token' })).toBe(1);
    // a later call finds the token: no exchange, not marked
    await client.getOrderByExternalId('o-1');
    expect(
      otel
        .spans()
        .filter((s) => s.name === ORDER)
        .at(-1)?.attributes['checkout.token.waited'],
    ).toBeUndefined();
  });

  it('counts a retried call once, with its attempts, and its retries', async () => {
    const client = newClient();
    await client.getAccessToken();
    fake.failNext(1, 503, { retryAfter: 0, only: 'business' });
    await client.getOrderByExternalId('o-1');
    const call = otel.span(ORDER);
    expect(call.attributes['checkout.attempts']).toBe(2);
    expect(call.attributes['http.response.status_code']).toBe(200);
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    const metrics = await otel.metrics();
    const route = { 'url.template': '/orders/by-external-id/{externalId}', 'http.request.method': 'GET' };
    expect(total(metrics.get('checkout.client.retries'), route)).toBe(1);
    expect(total(metrics.get('http.client.request.duration'), { ...route, 'http.response.status_code': 200 })).toBe(1);
    const [point] = metrics.get('http.client.request.duration')?.dataPoints ?? [];
    expect(metrics.get('http.client.request.duration')?.descriptor.unit).toBe('s');
    expect(point).toBeDefined();
  });

  it('marks a failure ERROR with error.type: the status code for an error status', async () => {
    const client = newClient();
    await expect(client.getOrderByExternalId('missing')).rejects.toBeInstanceOf(NotFoundError);
    const call = otel.span(ORDER);
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes).toMatchObject({ 'error.type': '404', 'http.response.status_code': 404, 'checkout.attempts': 1 });
    expect(call.attributes['checkout.request_id']).toEqual(expect.any(String));
    const metrics = await otel.metrics();
    expect(total(metrics.get('http.client.request.duration'), { 'error.type': '404', 'http.response.status_code': 404 })).toBe(1);
  });

  it('marks a failure without a response with the error class as error.type', async () => {
    const client = new CheckoutClient({ baseUrl: 'http://127.0.0.1:9', ...partner, maxRetries: 0 });
    await expect(client.getMe()).rejects.toBeInstanceOf(ConnectionError);
    const exchange = otel.span(TOKEN);
    expect(exchange.attributes['error.type']).toBe('ConnectionError');
    expect(exchange.attributes['http.response.status_code']).toBeUndefined();
    const call = otel.span('GET /auth/me');
    expect(call.status).toEqual({ code: SpanStatusCode.ERROR, message: 'ConnectionError' });
    const metrics = await otel.metrics();
    expect(total(metrics.get('checkout.client.token.exchanges'), { 'error.type': 'ConnectionError' })).toBe(1);
  });

  it('names a request() to a collection by its literal path, and values in it by {id}', async () => {
    const client = newClient();
    const paths: [string, string][] = [
      ['/checkouts', 'POST /checkouts'],
      ['/checkouts/ck_9f2a/confirm', 'POST /checkouts/{id}/confirm'],
      ['/refund-requests/7d9c2e8a-5b1f-4c3e-9a6d-2f8b1c0e4a7d', 'POST /refund-requests/{id}'],
      ['/lookups/by-trade-id/0xdeadbeefcafe1234', 'POST /lookups/by-trade-id/{id}'],
      ['/partners/acme%2Fcorp/settings', 'POST /partners/{id}/settings'],
    ];
    for (const [path] of paths) await client.request('POST', path, { json: {} }).catch(() => undefined);
    for (const [, name] of paths) expect(otel.span(name).attributes['url.template']).toBe(name.slice('POST '.length));
  });

  it('names a request() by a template that keeps no id', async () => {
    const client = newClient();
    await expect(client.request('POST', '/orders/ord-77a/payment', { json: { amount: '1' } })).rejects.toBeInstanceOf(NotFoundError);
    const call = otel.span('POST /orders/{id}/payment');
    expect(call.attributes['url.template']).toBe('/orders/{id}/payment');
    const metrics = await otel.metrics();
    for (const point of metrics.get('http.client.request.duration')?.dataPoints ?? []) {
      expect(JSON.stringify(point.attributes)).not.toContain('ord-77a');
    }
  });
});

describe('load control', () => {
  it('a refused retry and a dry budget: events on the call span, counted by route', async () => {
    const client = newClient({ retryBudget: { capacity: 5, retryCost: 5 } });
    await client.getAccessToken();
    fake.failNext(2, 503, { retryAfter: 0, only: 'business' });
    await expect(client.getOrderByExternalId('o-1')).rejects.toBeInstanceOf(ServerError);
    const call = otel.span(ORDER);
    expect(call.events.map((event) => event.name)).toEqual(['checkout.retry_budget.exhausted', 'checkout.retry_budget.denied']);
    expect(call.attributes).toMatchObject({ 'checkout.attempts': 2, 'error.type': '503' });
    const metrics = await otel.metrics();
    expect(
      total(metrics.get('checkout.client.retry_budget.denied'), {
        'url.template': '/orders/by-external-id/{externalId}',
        'http.request.method': 'GET',
      }),
    ).toBe(1);
    expect(total(metrics.get('checkout.client.retry_budget.exhausted'), { 'server.address': '127.0.0.1' })).toBe(1);
    // successes fill the bucket again (1 each): the call that makes a retry affordable says so
    for (let i = 0; i < 5; i += 1) await client.getOrderByExternalId('o-1');
    const restored = otel.spans().filter((span) => span.events.some((event) => event.name === 'checkout.retry_budget.restored'));
    expect(restored).toHaveLength(1);
    expect(restored[0]?.name).toBe(ORDER);
  });

  it('a meter that throws at every use never fails a call, nor the load control that reports to it', async () => {
    let thrown = 0;
    const broken = (): never => {
      thrown += 1;
      throw new Error('meter bug');
    };
    const instrument = { add: broken, record: broken, addCallback: broken, removeCallback: broken };
    const meter = new Proxy({}, { get: () => () => instrument });
    const client = newClient({ meterProvider: { getMeter: () => meter }, retryBudget: { capacity: 5, retryCost: 5 } });
    await client.getAccessToken();
    fake.failNext(2, 503, { retryAfter: 0, only: 'business' }); // a retry, then one the dry budget refuses
    await expect(client.getOrderByExternalId('o-1')).rejects.toBeInstanceOf(ServerError);
    for (let i = 0; i < 5; i += 1) expect((await client.getOrderByExternalId('o-1')).externalId).toBe('o-1'); // the budget refills
    expect(thrown).toBeGreaterThan(0); // the meter was used, and threw
  });

  it('a 429 with Retry-After: the pause, an event on the span and counted', async () => {
    const client = newClient();
    await client.getAccessToken();
    fake.failNext(1, 429, { retryAfter: 1, only: 'business' });
    await client.getOrderByExternalId('o-1');
    const call = otel.span(ORDER);
    const paused = call.events.find((event) => event.name === 'checkout.client.paused');
    expect(paused?.attributes?.['checkout.pause_ms']).toBeGreaterThan(500);
    expect(call.attributes['checkout.attempts']).toBe(2);
    expect(total((await otel.metrics()).get('checkout.client.pauses'))).toBe(1);
  });

  it('a request that waited for its turn: the queue duration by route', async () => {
    const client = newClient({ rateLimit: { concurrency: 1 } });
    await client.getAccessToken();
    fake.setDelay(20);
    await Promise.all([client.getOrderByExternalId('o-1'), client.getMe()]);
    fake.setDelay(0);
    const queued = (await otel.metrics()).get('checkout.client.queue.duration');
    expect(queued?.descriptor.unit).toBe('s');
    expect(total(queued, { 'url.template': '/auth/me', 'http.request.method': 'GET', 'server.port': port })).toBe(1);
  });
});

describe('a call the client refused to send', () => {
  /** The duration points of `error.type` `type`, and whether any of them carries a status code. */
  async function durationPoints(type: string) {
    const metric = (await otel.metrics()).get('http.client.request.duration');
    const matching = points(metric, { 'error.type': type });
    return {
      count: total(metric, { 'error.type': type }),
      withStatus: matching.filter((point) => 'http.response.status_code' in point.attributes).length,
    };
  }

  it("paused by a Retry-After past its deadline: no status code (no response came), error.type checkout.paused, not the service's 429", async () => {
    const client = newClient();
    await client.getAccessToken();
    fake.failNext(1, 429, { retryAfter: 30, only: 'business' });
    // the service's own 429: a response, recorded as one
    await expect(client.getOrderByExternalId('o-1', { timeoutMs: 2_000 })).rejects.toBeInstanceOf(RateLimitError);
    const refused = await client.getMe({ timeoutMs: 2_000 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    const span = otel.span('GET /auth/me');
    expect(span.attributes['error.type']).toBe('checkout.paused');
    expect(span.attributes).not.toHaveProperty('http.response.status_code');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(await durationPoints('checkout.paused')).toEqual({ count: 1, withStatus: 0 });
    // only the service's own 429 counts as one
    expect(await durationPoints('429')).toEqual({ count: 1, withStatus: 1 });
  });

  it('past rateLimit.maxQueue: error.type checkout.queue_full, no status code', async () => {
    const client = newClient({ rateLimit: { concurrency: 1, maxQueue: 1 } });
    await client.getAccessToken();
    fake.setDelay(200);
    const outcomes = await Promise.all(
      [client.getOrderByExternalId('o-1'), client.getMe(), client.getMe()].map((call) => call.catch((e: unknown) => e)),
    );
    fake.setDelay(0);
    expect(outcomes[2]).toBeInstanceOf(QueueFullError);
    const refused = otel.spans().filter((span) => span.attributes['error.type'] === 'checkout.queue_full');
    expect(refused).toHaveLength(1);
    expect(refused[0]?.attributes).not.toHaveProperty('http.response.status_code');
    expect(await durationPoints('checkout.queue_full')).toEqual({ count: 1, withStatus: 0 });
  });

  it('a queue timeout: error.type checkout.queue_timeout, no status code', async () => {
    const client = newClient({ rateLimit: { concurrency: 1 } });
    await client.getAccessToken();
    fake.setDelay(400);
    const outcomes = await Promise.all(
      [client.getOrderByExternalId('o-1'), client.getMe({ timeoutMs: 200 })].map((call) => call.catch((e: unknown) => e)),
    );
    fake.setDelay(0);
    expect(outcomes[1]).toBeInstanceOf(TimeoutError);
    const span = otel.span('GET /auth/me');
    expect(span.attributes['error.type']).toBe('checkout.queue_timeout');
    expect(span.attributes).not.toHaveProperty('http.response.status_code');
    expect(await durationPoints('checkout.queue_timeout')).toEqual({ count: 1, withStatus: 0 });
  });
});

describe('providers', () => {
  it('takes tracerProvider and meterProvider as options, with nothing registered globally', async () => {
    await otel.uninstall();
    otel = installOtel({ global: false });
    const client = newClient({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
    await client.getOrderByExternalId('o-1');
    expect(otel.span(ORDER).kind).toBe(SpanKind.CLIENT);
    expect(total((await otel.metrics()).get('http.client.request.duration'))).toBe(2);
  });

  it('emits nothing, and the call works, when no provider is registered', async () => {
    await otel.uninstall();
    otel = installOtel({ global: false });
    const order = await newClient().getOrderByExternalId('o-1');
    expect(order.externalId).toBe('o-1');
    expect(otel.spans()).toEqual([]);
    expect(fake.requests.every((r) => r.headers['traceparent'] === undefined)).toBe(true);
  });

  it('rejects a provider that is not one', () => {
    expect(() => newClient({ tracerProvider: {} })).toThrow(/tracerProvider must be an OpenTelemetry provider \(with getTracer\)/);
    expect(() => newClient({ meterProvider: 'x' })).toThrow(/meterProvider must be an OpenTelemetry provider \(with getMeter\)/);
  });
});
