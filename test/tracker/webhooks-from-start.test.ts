import { createEvent } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { describe, expect, it } from 'vitest';
import { fakeService, recorder, trackerHarness } from './helpers.js';

// schedule.webhooksFromStart: a fresh tracker (no event has reached its store yet) takes the
// webhook-first schedule at once, so a test can assert that a change came by webhook.

const track = trackerHarness();
const SCHEDULE = { jitter: 0 };

describe('schedule.webhooksFromStart', () => {
  it('a fresh tracker reads an announced change at the safety pace, and its webhook brings it', async () => {
    const { fake, client, reads, advance } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
    const tracker = track({ client, onChange: seen.onChange, schedule: { ...SCHEDULE, webhooksFromStart: true } });
    await tracker.watchOrder('o-1');
    await advance(1_000);
    fake.settleOrder('o-1');
    await advance(30_000);
    // no fast poll found it first: one read at the watch, the next one due at 40 s
    expect(reads.get('o-1')).toBe(1);
    await tracker.nudge('order', 'o-1', { event: createEvent('otc.trade.settled', { tradeId: 't-1' }) });
    await advance(1_000);
    expect(seen.changes.map((c) => [c.status, c.source])).toEqual([
      ['Pending', 'poll'],
      ['Settled', 'webhook'],
    ]);
  });

  it('without it, the same tracker polls fast until an event comes: a poll finds the change first', async () => {
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
    const tracker = track({ client, onChange: seen.onChange, schedule: SCHEDULE });
    await tracker.watchOrder('o-1');
    await advance(1_000);
    fake.settleOrder('o-1');
    await advance(5_000);
    expect(seen.changes.map((c) => [c.status, c.source])).toEqual([
      ['Pending', 'poll'],
      ['Settled', 'poll'],
    ]);
  });

  it('counts webhookSilenceMs from the start: with no event by then, announced changes are polled fast', async () => {
    const { fake, client, reads, advance } = fakeService();
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
    const tracker = track({
      client,
      store: new MemoryStatusStore(),
      onChange: () => undefined,
      schedule: { ...SCHEDULE, webhooksFromStart: true, webhookSilenceMs: 60_000 },
    });
    await tracker.watchOrder('o-1');
    await advance(60_000);
    const atSilence = reads.get('o-1') ?? 0;
    expect(atSilence).toBeLessThanOrEqual(3);
    await advance(60_000);
    // the read due at 40 s still saw events as flowing; from the one after (80 s), every 2 s
    expect((reads.get('o-1') ?? 0) - atSilence).toBeGreaterThanOrEqual(15);
  });

  it('refuses a value that is not a boolean, naming it', () => {
    const { client } = fakeService();
    const make = (value: unknown) => () =>
      createStatusTracker({ client, onChange: () => undefined, schedule: { webhooksFromStart: value as boolean } });
    expect(make('yes')).toThrow(/schedule\.webhooksFromStart must be a boolean/);
    expect(make(true)).not.toThrow();
  });
});
