import { createStatusTracker, MemoryStatusStore, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installOtel, type Otel } from '../telemetry/otel.js';
import { fakeService, recorder } from './helpers.js';

let otel: Otel;
let tracker: StatusTracker | undefined;
beforeEach(() => {
  otel = installOtel();
});
afterEach(async () => {
  await tracker?.drain({ timeoutMs: 1_000 });
  otel.uninstall();
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
    await seen.handed(1);
    await tracker.drain({ timeoutMs: 1_000 });
    expect(otel.spans().some((span) => span.name === 'checkout.tracker.change')).toBe(true);
    const read = otel.spans().find((span) => span.name === 'checkout.tracker.read');
    expect(read?.attributes).toMatchObject({ 'checkout.record.kind': 'order', 'checkout.record.external_id': 'otel-1', 'checkout.record.status': 'Settled', 'checkout.tracker.changed': true });
    expect(otel.span('checkout.tracker.change').attributes).toMatchObject({ 'checkout.record.status': 'Settled', 'checkout.change.source': 'poll' });
    expect(seen.statuses('otel-1')).toEqual(['Settled']);
  });
});
