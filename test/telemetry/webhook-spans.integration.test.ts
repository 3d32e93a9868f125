import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { createWebhookHandler, signPayload, type WebhookHandler } from 'checkout-partner-sdk/webhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installOtel, parentOf, total, type Otel } from './otel.js';

// Webhook deliveries as OpenTelemetry sees them: a span per delivery with its outcome, the
// confirmation's reads as the client's spans under it, and the duration by outcome.

const partner = { partnerId: 'p-hook', partnerSecret: 'hook-partner-secret-2b7' };
const SECRET = 'whsec_otel_5f0e9d';
const fake = createFakeCheckout({ partners: [partner] });
let url = '';
let close: () => Promise<void>;
let otel: Otel;

beforeAll(async () => {
  ({ url, close } = await fake.listen());
});
afterAll(() => close());
beforeEach(() => {
  fake.reset();
  fake.setOrder({ externalId: 'order-t-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
  otel = installOtel();
});
afterEach(() => otel.uninstall());

const DELIVERY = 'checkout.webhook.delivery';

function newHandler(onEvent: () => Promise<void> | void = () => undefined, extra: object = {}): WebhookHandler {
  return createWebhookHandler({
    secret: SECRET,
    client: new CheckoutClient({ baseUrl: url, ...partner }),
    resolveOrderExternalId: (event) => `order-${String(event.tradeId)}`,
    onEvent,
    logger: false, // failures and 503s are the point here: not written to the test run's stderr
    ...extra,
  });
}

async function delivery(
  event: object,
  { signature, headers = {} }: { signature?: string; headers?: Record<string, string> } = {},
): Promise<Request> {
  const body = JSON.stringify(event);
  return new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provider-signature': signature ?? (await signPayload(body, SECRET)), ...headers },
    body,
  });
}

const settled = { eventId: 'evt-1', type: 'otc.trade.settled', tradeId: 't-1' };

describe('a delivery', () => {
  it('handled: its span has the event, the outcome, the store answer and the confirmation read as a child', async () => {
    const handler = newHandler();
    const response = await handler.handle(await delivery(settled));
    expect(response.status).toBe(200);
    const span = otel.span(DELIVERY);
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toEqual({
      'checkout.webhook.outcome': 'handled',
      'checkout.webhook.event_id': 'evt-1',
      'checkout.webhook.event_type': 'otc.trade.settled',
      'checkout.webhook.confirmed': true,
      'checkout.webhook.claim': 'claimed',
      'http.response.status_code': 200,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    const read = otel.span('GET /orders/by-external-id/{externalId}');
    expect(parentOf(read)).toBe(span.spanContext().spanId);
    expect(parentOf(otel.span('POST /auth/token'))).toBe(read.spanContext().spanId);
  });

  it('duplicate, in-flight and bad-signature: each outcome on its span and in the duration metric', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const handler = newHandler(async () => {
      calls += 1;
      if (calls === 1) await held;
    });
    const first = handler.handle(await delivery(settled));
    // the first delivery holds the claim while onEvent waits
    for (let i = 0; i < 50_000 && calls === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect((await handler.handle(await delivery(settled))).status).toBe(409);
    release();
    expect((await first).status).toBe(200);
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    expect((await handler.handle(await delivery(settled, { signature: 'sha256=00' }))).status).toBe(401);

    const byOutcome = (outcome: string) =>
      otel.spans().filter((s) => s.name === DELIVERY && s.attributes['checkout.webhook.outcome'] === outcome);
    expect(byOutcome('in-flight')[0]?.attributes).toMatchObject({
      'checkout.webhook.claim': 'in-flight',
      'http.response.status_code': 409,
      'checkout.webhook.event_id': 'evt-1',
    });
    expect(byOutcome('duplicate')[0]?.attributes).toMatchObject({ 'checkout.webhook.claim': 'done', 'http.response.status_code': 200 });
    const bad = byOutcome('bad-signature')[0];
    expect(bad?.attributes).toEqual({ 'checkout.webhook.outcome': 'bad-signature', 'http.response.status_code': 401 });
    expect(bad?.status.code).toBe(SpanStatusCode.UNSET);

    const duration = (await otel.metrics()).get('checkout.webhook.delivery.duration');
    expect(duration?.descriptor.unit).toBe('s');
    for (const outcome of ['handled', 'duplicate', 'in-flight', 'bad-signature']) {
      expect(total(duration, { 'checkout.webhook.outcome': outcome }), outcome).toBe(1);
    }
  });

  it('failed: ERROR, with the error class (onEvent threw)', async () => {
    const handler = newHandler(() => {
      throw new RangeError('partner bug with a body value 9c1');
    });
    expect((await handler.handle(await delivery(settled))).status).toBe(500);
    const span = otel.span(DELIVERY);
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'failed' });
    expect(span.attributes).toMatchObject({
      'checkout.webhook.outcome': 'failed',
      'error.type': 'RangeError',
      'checkout.webhook.claim': 'claimed',
    });
  });

  it('timeout: answered 503, the span ends with the late outcome when the work ends', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const handler = newHandler(() => held, { responseTimeoutMs: 20, leaseMs: 60_000 });
    expect((await handler.handle(await delivery(settled))).status).toBe(503);
    expect(otel.spans().filter((s) => s.name === DELIVERY)).toEqual([]);
    expect(total((await otel.metrics()).get('checkout.webhook.delivery.duration'), { 'checkout.webhook.outcome': 'timeout' })).toBe(1);
    release();
    await handler.drain({ timeoutMs: 5_000 });
    const span = otel.span(DELIVERY);
    expect(span.attributes).toMatchObject({
      'checkout.webhook.outcome': 'timeout',
      'checkout.webhook.late_outcome': 'handled',
      'http.response.status_code': 503,
      'checkout.webhook.claim': 'claimed',
    });
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('joins the active span that the framework instrumentation made', async () => {
    const handler = newHandler();
    const server = otel.tracer.startSpan('POST /webhooks', { kind: SpanKind.SERVER });
    const response = await context.with(trace.setSpan(context.active(), server), async () => handler.handle(await delivery(settled)));
    server.end();
    expect(response.status).toBe(200);
    const span = otel.span(DELIVERY);
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(span)).toBe(server.spanContext().spanId);
  });

  it('continues the traceparent the request carries when no span is active', async () => {
    const remote = otel.tracer.startSpan('sender');
    const headers: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), remote), headers);
    remote.end();
    await newHandler().handle(await delivery(settled, { headers }));
    const span = otel.span(DELIVERY);
    expect(span.spanContext().traceId).toBe(remote.spanContext().traceId);
    expect(parentOf(span)).toBe(remote.spanContext().spanId);
  });

  it("defaults to its client's providers, and takes its own", async () => {
    await otel.uninstall();
    otel = installOtel({ global: false });
    const client = new CheckoutClient({ baseUrl: url, ...partner, tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
    const handler = createWebhookHandler({ secret: SECRET, client, resolveOrderExternalId: () => 'order-t-1', onEvent: () => undefined });
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    expect(otel.span(DELIVERY).attributes['checkout.webhook.outcome']).toBe('handled');

    const own = installOtel({ global: false });
    const other = createWebhookHandler({
      secret: SECRET,
      client,
      onEvent: () => undefined,
      logger: false,
      tracerProvider: own.tracerProvider,
      meterProvider: own.meterProvider,
    });
    expect((await other.handle(await delivery({ ...settled, eventId: 'evt-2' }))).status).toBe(200);
    expect(own.span(DELIVERY).attributes['checkout.webhook.event_id']).toBe('evt-2');
    expect(total((await own.metrics()).get('checkout.webhook.delivery.duration'))).toBe(1);
    await own.uninstall();
    expect(() => createWebhookHandler({ secret: SECRET, client, onEvent: () => undefined, meterProvider: {} as never })).toThrow(
      /meterProvider must be/,
    );
  });
});
