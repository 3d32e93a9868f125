import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// the internal API that load control (src/client/load/) and the status tracker (src/tracker/) call;
// their public behaviour is tested with those features
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { queueWait, retryBudgetExhausted, statusChange, trackerLag, trackerRead, watchedRecords } from '../../src/telemetry/hooks.js';
import { installOtel, parentOf, points, total, type Otel } from './otel.js';

let otel: Otel;
beforeEach(() => {
  otel = installOtel();
});
afterEach(() => otel.uninstall());

describe('the hooks other features call', () => {
  it('load control: retry-budget exhaustion (counted, an event on the call span) and queue wait', async () => {
    const telemetry = new Telemetry({}, 'https://checkout.example.com/api/v1/partner-api');
    const core = await telemetry.use();
    const call = core?.call('get', '/orders/by-external-id/o-1');
    await call?.run(async () => {
      retryBudgetExhausted(telemetry, 'get', '/orders/by-external-id/o-1');
      queueWait(telemetry, 250, 'get', '/orders/by-external-id/o-1');
    }, { attempts: 1, response: undefined });
    const span = otel.span('GET /orders/by-external-id/{externalId}');
    expect(span.events.map((event) => event.name)).toEqual(['checkout.retry_budget.exhausted']);
    const metrics = await otel.metrics();
    const route = { 'url.template': '/orders/by-external-id/{externalId}', 'server.address': 'checkout.example.com', 'server.port': 443 };
    expect(total(metrics.get('checkout.client.retry_budget.exhausted'), route)).toBe(1);
    const wait = points(metrics.get('checkout.client.queue.duration'), route)[0]?.value as { sum: number; count: number };
    expect(wait).toMatchObject({ count: 1, sum: 0.25 });
  });

  it('tracker: a span per read and per change (children of the active span), lag and watched records', async () => {
    const telemetry = new Telemetry({});
    await otel.tracer.startActiveSpan('poll', async (poll) => {
      await trackerRead(telemetry, 'order', 'o-1', async (note) => {
        note({ status: 'Settled', changed: true });
        await statusChange(telemetry, { kind: 'order', externalId: 'o-1', status: 'Settled', previousStatus: null, source: 'poll' }, async () => undefined);
      });
      await expect(trackerRead(telemetry, 'withdrawal', 'w-1', () => Promise.reject(new TypeError('read failed')))).rejects.toThrow('read failed');
      poll.end();
    });
    const [read, failed] = otel.spans().filter((span) => span.name === 'checkout.tracker.read');
    const change = otel.span('checkout.tracker.change');
    expect(read?.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(read!)).toBe(otel.span('poll').spanContext().spanId);
    expect(read?.attributes).toEqual({ 'checkout.record.kind': 'order', 'checkout.record.external_id': 'o-1', 'checkout.record.status': 'Settled', 'checkout.tracker.changed': true });
    expect(parentOf(change)).toBe(read?.spanContext().spanId);
    expect(change.attributes).toEqual({
      'checkout.record.kind': 'order',
      'checkout.record.external_id': 'o-1',
      'checkout.record.status': 'Settled',
      'checkout.record.previous_status': 'null',
      'checkout.change.source': 'poll',
    });
    expect(failed?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'TypeError' });

    trackerLag(telemetry, 1500, 'order', 'poll');
    let counted = 0;
    const stop = watchedRecords(telemetry, async () => {
      counted += 1;
      return { order: 12, withdrawal: 3 };
    });
    const metrics = await otel.metrics();
    expect(points(metrics.get('checkout.tracker.lag'), { 'checkout.record.kind': 'order' })[0]?.value).toMatchObject({ count: 1, sum: 1.5 });
    expect(points(metrics.get('checkout.tracker.watched')).map((p) => [p.attributes['checkout.record.kind'], p.value])).toEqual([['order', 12], ['withdrawal', 3]]);
    expect(counted).toBe(1);
    stop();
    await otel.metrics();
    expect(counted).toBe(1); // not asked any more
  });

  it('with nothing registered: the work runs, nothing is made', async () => {
    await otel.uninstall();
    otel = installOtel({ global: false });
    const telemetry = new Telemetry({});
    expect(telemetry.use()).toBeUndefined();
    expect(await trackerRead(telemetry, 'order', 'o-1', async () => 'read')).toBe('read');
    retryBudgetExhausted(telemetry, 'get', '/auth/me');
    watchedRecords(telemetry, () => ({ order: 1 }))();
    expect(otel.spans()).toEqual([]);
  });
});
