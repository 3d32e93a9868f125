import { createStatusTracker, MemoryStatusStore, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settled } from '../helpers/fake-time.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { installOtel, type Otel } from '../telemetry/otel.js';
import { FAKE_TIMERS, fakeService, recorder } from './helpers.js';

let otel: Otel;
let tracker: StatusTracker | undefined;
beforeEach(() => {
  otel = installOtel();
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(async () => {
  await tracker?.drain({ timeoutMs: 1_000 });
  vi.useRealTimers();
  await otel.uninstall();
});

describe('createStatusTracker with OpenTelemetry', () => {
  it('makes a span per read (the status found, changed or not) and per status change', async () => {
    const { fake, client } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'otel-1', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
    tracker = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: seen.onChange, claimIntervalMs: 10 });
    tracker.start();
    await tracker.watchOrder('otel-1');
    // the change handed over, then the turn that handed it finished (its spans ended): no time budget
    await settled(seen.handed(1), 'the read did not happen');
    await settled(tracker.drain({ timeoutMs: 1_000 }), 'the tracker did not drain');
    expect(otel.spans().some((span) => span.name === 'checkout.tracker.change')).toBe(true);
    const read = otel.spans().find((span) => span.name === 'checkout.tracker.read');
    expect(read?.attributes).toMatchObject({
      'checkout.record.kind': 'order',
      'checkout.record.external_id': 'otel-1',
      'checkout.record.status': 'Settled',
      'checkout.tracker.changed': true,
    });
    expect(otel.span('checkout.tracker.change').attributes).toMatchObject({
      'checkout.record.status': 'Settled',
      'checkout.change.source': 'poll',
    });
    expect(seen.statuses('otel-1')).toEqual(['Settled']);
  });

  it('marks a failed read span as an error, named by the error, and hands nothing over', async () => {
    const { fake, client, until } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'otel-2', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
    await client.getAccessToken();
    fake.failNext(1, 503, { only: 'business' });
    tracker = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: seen.onChange, claimIntervalMs: 10, logger: false });
    tracker.start();
    await tracker.watchOrder('otel-2');
    const failedRead = () =>
      otel.spans().find((span) => span.name === 'checkout.tracker.read' && span.status.code === SpanStatusCode.ERROR);
    expect(await until(() => failedRead() !== undefined, 5_000)).toBe(true);
    expect(failedRead()?.status).toEqual({ code: SpanStatusCode.ERROR, message: '503' }); // the error.type of a status read: its HTTP status
    expect(seen.statuses('otel-2')).toEqual([]);
  });
});
