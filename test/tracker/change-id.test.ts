import { MemoryStatusStore, type StatusChange } from 'checkout-partner-sdk/tracker';
import { describe, expect, it } from 'vitest';
import { fakeService, recorder, trackerHarness } from './helpers.js';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const track = trackerHarness();

describe('change.id on MemoryStatusStore', () => {
  it('is one UUID for one change, however often it is handed over: again after onChange threw', async () => {
    const { fake, client, advance } = fakeService();
    const calls: StatusChange[] = [];
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
    const tracker = track({
      client,
      logger: false,
      onChange: (change) => {
        calls.push(change);
        if (calls.length < 3) throw new Error('warehouse down');
      },
    });
    await tracker.watchOrder('o-1');
    await advance(10_000);
    expect(calls.map((c) => c.status)).toEqual(['Settled', 'Settled', 'Settled']);
    expect(calls[0]!.id).toMatch(UUID_V8);
    expect(new Set(calls.map((c) => c.id))).toEqual(new Set([calls[0]!.id]));
  });

  it('is the same on another tracker of the store, and differs between records with the same statuses', async () => {
    const { fake, client, advance } = fakeService();
    const store = new MemoryStatusStore();
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
    fake.setOrder({ externalId: 'o-2', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-2' } });
    const failed: StatusChange[] = [];
    const first = track({
      client,
      store,
      logger: false,
      onChange: (change) => {
        failed.push(change);
        throw new Error('killed before it was recorded');
      },
    });
    await first.watchOrder('o-1');
    await advance(1_000);
    await first.drain();
    expect(failed.map((c) => c.status)).toEqual(['Settled']);

    const seen = recorder();
    const second = track({ client, store, onChange: seen.onChange });
    await second.watchOrder('o-2');
    await advance(10_000);
    const byRecord = new Map(seen.changes.map((c) => [c.externalId, c.id]));
    expect(byRecord.get('o-1')).toBe(failed[0]!.id);
    expect(byRecord.get('o-2')).toMatch(UUID_V8);
    expect(byRecord.get('o-2')).not.toBe(byRecord.get('o-1'));
  });

  it('differs for every change of a record, a status reached again included, even within one tick of the store clock', async () => {
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    // a clock that stands still: every change is recorded at the same store time
    const tracker = track({ client, store: new MemoryStatusStore({ clock: () => 1_000 }), onChange: seen.onChange });
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
    await tracker.watchOrder('o-1');
    await advance(500);
    for (const status of ['Processing', 'Pending', 'Processing']) {
      fake.updateOrder('o-1', { settlement: { status } });
      await tracker.nudge('order', 'o-1');
      await advance(500);
    }
    expect(seen.statuses('o-1')).toEqual(['Pending', 'Processing', 'Pending', 'Processing']);
    expect(new Set(seen.changes.map((c) => c.id)).size).toBe(4);
  });
});
