import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// the internal API the status tracker (src/tracker/) calls; its public behaviour is tested with it
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { statusChange, trackerLag, trackerRead, watchedRecords } from '../../src/telemetry/hooks.js';
import { installOtel, parentOf, points, total, type Otel } from './otel.js';

let otel: Otel;
beforeEach(() => {
  otel = installOtel();
});
afterEach(() => otel.uninstall());

describe('the hooks other features call', () => {
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
    watchedRecords(telemetry, () => ({ order: 1 }))();
    expect(otel.spans()).toEqual([]);
  });
});
