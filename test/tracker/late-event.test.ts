import { createEvent } from 'checkout-partner-sdk/testing';
import { MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { describe, expect, it } from 'vitest';
import { fakeService, recorder, trackerHarness } from './helpers.js';

// A record whose watch ended at a final status, then a late event for it: the event restarts the
// watch, the read finds the status already handled and the watch ends again, told only once.

const track = trackerHarness();

describe('a late event for a record whose watch ended at a final status', () => {
  it.each(['webhook event', 'nudge without an event'] as const)('logs tracker.ended and calls onWatchEnd once (%s)', async (late) => {
    const { fake, client, reads, advance } = fakeService();
    const seen = recorder();
    const ends: unknown[] = [];
    const store = new MemoryStatusStore();
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
    const tracker = track({
      client,
      store,
      onChange: seen.onChange,
      logger: seen.logger,
      onWatchEnd: (end) => ends.push(end),
    });
    await tracker.watchOrder('o-1');
    await advance(5_000);
    expect(seen.statuses('o-1')).toEqual(['Settled']);
    expect(seen.log.filter((e) => e.event === 'tracker.ended')).toHaveLength(1);

    // the provider's copy of the event arrives after the watch ended
    await advance(60_000);
    const event = createEvent('otc.trade.settled', { tradeId: 't-1' });
    await store.nudge('order', 'o-1', late === 'webhook event' ? { event } : {});
    const readsBefore = reads.get('o-1') ?? 0;
    await advance(5_000);
    expect(reads.get('o-1')).toBe(readsBefore + 1); // the late event was read, as it asks
    expect(seen.statuses('o-1')).toEqual(['Settled']); // and handed over nothing new
    expect(seen.log.filter((e) => e.event === 'tracker.ended')).toEqual([
      expect.objectContaining({ event: 'tracker.ended', externalId: 'o-1', status: 'Settled', reason: 'final' }),
    ]);
    expect(ends).toEqual([{ kind: 'order', externalId: 'o-1', reason: 'final', status: 'Settled' }]);
    expect((await store.get('order', 'o-1'))?.watching).toBe(false);
  });

  it('still tells the end when a watch reaches a final status it had handled as not final', async () => {
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    const store = new MemoryStatusStore();
    let finalStatuses = new Set<string>();
    fake.setOrder({ externalId: 'o-2', currency: 'USDT', settlement: { status: 'Processing', tradeId: 't-2' } });
    const tracker = track({
      client,
      store,
      onChange: seen.onChange,
      logger: seen.logger,
      isFinal: (change) => finalStatuses.has(change.status ?? ''),
      schedule: { fastIntervalMs: 1_000 },
    });
    await tracker.watchOrder('o-2');
    await advance(3_000);
    expect(seen.statuses('o-2')).toEqual(['Processing']);
    finalStatuses = new Set(['Processing']); // the same watch now takes it as final
    await advance(5_000);
    expect(seen.log.filter((e) => e.event === 'tracker.ended')).toEqual([
      expect.objectContaining({ externalId: 'o-2', status: 'Processing' }),
    ]);
  });
});
