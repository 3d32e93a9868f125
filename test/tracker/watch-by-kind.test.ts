import type { RecordReader, StatusKind } from 'checkout-partner-sdk';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { describe, expect, it } from 'vitest';
import { fakeService, recorder, trackerHarness } from './helpers.js';

// Issue 40: tracker.watch(kind, id) beside watchOrder / watchWithdrawal (thin calls of it), and a
// client double that needs only the reads of the kinds it is used for.

const track = trackerHarness();

describe('tracker.watch(kind, externalId)', () => {
  it('watches a record of any kind, as the per-kind watches do (which work unbound too)', async () => {
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    fake.setWithdrawal({ externalId: 'w-1', status: 'Completed' });
    fake.setOrder({ externalId: 'o-1', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
    const tracker = track({ client, store: new MemoryStatusStore(), onChange: seen.onChange, logger: seen.logger });
    await tracker.watch('withdrawal', 'w-1');
    const { watchOrder } = tracker;
    await watchOrder('o-1');
    await advance(5_000);
    expect(seen.changes.map(({ kind, externalId, status }) => [kind, externalId, status]).sort()).toEqual([
      ['order', 'o-1', 'Settled'],
      ['withdrawal', 'w-1', 'Completed'],
    ]);
  });

  it('refuses an unknown kind and a bad externalId with a TypeError, watching nothing', async () => {
    const { client, reads, advance } = fakeService();
    const tracker = track({ client, store: new MemoryStatusStore(), onChange: () => {}, logger: false });
    await expect(tracker.watch('no-such-kind' as StatusKind, 'x-1')).rejects.toThrow(/kind must be "order" or .*, got "no-such-kind"/);
    await expect(tracker.watch('order', '')).rejects.toThrow(TypeError);
    await advance(5_000);
    expect(reads.size).toBe(0);
  });
});

describe('a client double needs only the reads of the kinds it is used for', () => {
  it('one with only the withdrawal read tracks withdrawals; an order read fails, naming what it lacks', async () => {
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    fake.setWithdrawal({ externalId: 'w-1', status: 'Completed' });
    fake.setOrder({ externalId: 'o-1', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
    const double: RecordReader = { getWithdrawalByExternalId: (id, options) => client.getWithdrawalByExternalId(id, options) };
    const tracker = track({ client: double, store: new MemoryStatusStore(), onChange: seen.onChange, logger: seen.logger });
    await tracker.watchWithdrawal('w-1');
    await tracker.watchOrder('o-1');
    await advance(5_000);
    expect(seen.changes.map((c) => [c.kind, c.status])).toEqual([['withdrawal', 'Completed']]);
    const failed = seen.log.find((e) => e.event === 'tracker.read' && e.outcome === 'failed');
    expect(failed).toMatchObject({ kind: 'order', externalId: 'o-1', error: { name: 'TypeError' } });
    expect(failed?.error?.message).toMatch(/neither getOrderByExternalId nor getRecord/);
  });

  it('one with only getRecord reads every kind through it', async () => {
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    fake.setWithdrawal({ externalId: 'w-1', status: 'Completed' });
    fake.setOrder({ externalId: 'o-1', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
    const asked: string[] = [];
    const double: RecordReader = {
      getRecord: (kind, id, options) => {
        asked.push(`${kind}:${id}`);
        return kind === 'order' ? client.getOrderByExternalId(id, options) : client.getWithdrawalByExternalId(id, options);
      },
    };
    const tracker = track({ client: double, store: new MemoryStatusStore(), onChange: seen.onChange, logger: seen.logger });
    await tracker.watch('order', 'o-1');
    await tracker.watch('withdrawal', 'w-1');
    await advance(5_000);
    expect(asked.sort()).toEqual(['order:o-1', 'withdrawal:w-1']);
    expect(seen.changes).toHaveLength(2);
  });

  it('one with no read at all is refused at construction', () => {
    expect(() => createStatusTracker({ client: {}, onChange: () => {} })).toThrow(/client must be a CheckoutClient/);
  });
});
