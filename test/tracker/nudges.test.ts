import type { StatusReader } from 'checkout-partner-sdk';
import { NotFoundError } from 'checkout-partner-sdk';
import { createEvent } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MAX_TRACKED_EVENT_BYTES, MemoryStatusStore, type StatusTracker } from 'checkout-partner-sdk/tracker';
import type { TransactionalStatusStore } from 'checkout-partner-sdk/stores';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAKE_TIMERS, recorder } from './helpers.js';

let trackers: StatusTracker[] = [];

beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(async () => {
  const draining = Promise.all(trackers.map((tracker) => tracker.drain({ timeoutMs: 1_000 })));
  await vi.advanceTimersByTimeAsync(2_000);
  await draining;
  trackers = [];
  vi.useRealTimers();
});

function track<T>(options: Parameters<typeof createStatusTracker<T>>[0]): StatusTracker<T> {
  const tracker = createStatusTracker(options);
  trackers.push(tracker as StatusTracker);
  tracker.start();
  return tracker;
}

/** Orders in memory: `reads` counts reads by externalId; an absent order is a 404. */
function orders() {
  const records = new Map<string, string>();
  const reads = new Map<string, number>();
  const client: StatusReader = {
    getOrderByExternalId: async (externalId) => {
      reads.set(externalId, (reads.get(externalId) ?? 0) + 1);
      const status = records.get(externalId);
      if (status === undefined) throw new NotFoundError(`order ${externalId} not found`, { status: 404 });
      return { externalId, currency: 'USDT', settlement: { status, tradeId: 't-1' } };
    },
    getWithdrawalByExternalId: () => Promise.reject(new Error('unused')),
  };
  return { records, reads, client };
}

async function advance(ms: number, stepMs = 50): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += stepMs) await vi.advanceTimersByTimeAsync(Math.min(stepMs, ms - elapsed));
}

describe('nudges after a failing onChange keep the back-off', () => {
  /** onChange calls in 6 s for a record whose onChange always throws, nudged every 50 ms or never. */
  async function throwingFor6s(nudgeEvery50ms: boolean) {
    const { records, client } = orders();
    records.set('o-1', 'Settled');
    const store = new MemoryStatusStore();
    let calls = 0;
    const tracker = track({
      client,
      store,
      logger: false,
      onChange: () => {
        calls += 1;
        throw new Error('partner database down');
      },
    });
    const event = createEvent('otc.trade.settled', { tradeId: 't-1' });
    await tracker.watchOrder('o-1');
    for (let elapsed = 0; elapsed < 6_000; elapsed += 50) {
      if (nudgeEvery50ms) await tracker.nudge('order', 'o-1', { event });
      await vi.advanceTimersByTimeAsync(50);
    }
    return { calls, state: await store.get('order', 'o-1'), event };
  }

  it('a nudge every 50 ms calls a throwing onChange no more often than the back-off alone', async () => {
    const alone = await throwingFor6s(false);
    const nudged = await throwingFor6s(true);
    // retryDelayMs 1 s doubling (±20% jitter): about 3 to 4 calls in 6 s, nudged or not
    expect(alone.calls).toBeGreaterThanOrEqual(3);
    expect(nudged.calls).toBeLessThanOrEqual(alone.calls + 1);
    expect(nudged.calls).toBeLessThanOrEqual(5);
    // the event is still remembered for the next read
    expect(nudged.state).toMatchObject({ failures: nudged.calls, event: { eventId: nudged.event.eventId } });
  });

  it('once onChange succeeds, a nudge reads at once again', async () => {
    const { records, reads, client } = orders();
    records.set('o-2', 'Pending');
    const seen = recorder();
    let failing = true;
    const tracker = track({
      client,
      logger: false,
      schedule: { fastForMs: 1, maxIntervalMs: 600_000 },
      onChange: (change) => {
        if (failing) throw new Error('down');
        seen.onChange(change);
      },
    });
    await tracker.watchOrder('o-2');
    await advance(100);
    failing = false;
    await advance(3_000);
    expect(seen.statuses('o-2')).toEqual(['Pending']);
    const before = reads.get('o-2')!;
    await tracker.nudge('order', 'o-2', { event: createEvent('otc.trade.settled', { tradeId: 't-1' }) });
    await advance(100);
    expect(reads.get('o-2')).toBe(before + 1);
  });
});

describe('a nudged event is kept as a bounded projection', () => {
  it('a 200 KB event costs the store less than MAX_TRACKED_EVENT_BYTES; onChange gets the projection', async () => {
    const { records, client } = orders();
    records.set('o-3', 'Pending');
    const store = new MemoryStatusStore();
    const seen = recorder();
    let hold = true;
    const tracker = track({
      client,
      store,
      logger: false,
      onChange: (change) => {
        if (hold) throw new Error('not yet');
        seen.onChange(change);
      },
    });
    const huge = createEvent('otc.trade.settled', {
      tradeId: 't-1',
      amount: 12.5,
      confirmed: true,
      memo: 'x'.repeat(100_000),
      nested: { blob: 'y'.repeat(100_000) },
      tags: ['user:o-3'],
      ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`field${i}`, `value-${i}`])),
    });
    expect(JSON.stringify(huge).length).toBeGreaterThan(200_000);
    await tracker.nudge('order', 'o-3', { event: huge });
    const kept = (await store.get('order', 'o-3'))?.event;
    expect(new TextEncoder().encode(JSON.stringify(kept)).length).toBeLessThanOrEqual(MAX_TRACKED_EVENT_BYTES);
    expect(kept).toMatchObject({
      eventId: huge.eventId,
      type: 'otc.trade.settled',
      tradeId: 't-1',
      amount: 12.5,
      confirmed: true,
      field0: 'value-0',
    });
    expect((kept as unknown as { memo: string }).memo.length).toBeLessThan(300);
    expect(kept).not.toHaveProperty('nested');
    expect(kept).not.toHaveProperty('tags');
    hold = false;
    await advance(5_000);
    expect(seen.changes[0]?.event).toEqual(kept);
    expect(seen.changes[0]?.source).toBe('webhook');
  });

  it('cuts a string of multi-byte characters within the cap, never splitting a character', async () => {
    const store = new MemoryStatusStore();
    const { client } = orders();
    const tracker = createStatusTracker({ client, store, logger: false, onChange: () => {} });
    const event = createEvent('pix.deposit.received', { endUserId: '😀'.repeat(10_000), note: '\u0001'.repeat(5_000) });
    await tracker.nudge('order', 'o-4', { event });
    const kept = (await store.get('order', 'o-4'))!.event as unknown as Record<string, string>;
    expect(new TextEncoder().encode(JSON.stringify(kept)).length).toBeLessThanOrEqual(MAX_TRACKED_EVENT_BYTES);
    expect(kept['endUserId']).toMatch(/^(😀)+$/u);
    expect(kept['note']).toMatch(/^\u0001+$/);
    await expect(tracker.nudge('order', 'o-4', { event: { type: 'x' } as never })).rejects.toThrow(TypeError);
  });
});

describe('a record never found', () => {
  it('stops being watched after notFoundForMs (default: fastForMs, 10 minutes), reported as not-found', async () => {
    const { reads, client } = orders();
    const seen = recorder();
    const ends: unknown[] = [];
    const store = new MemoryStatusStore();
    const tracker = track({ client, store, onChange: seen.onChange, logger: seen.logger, onWatchEnd: (end) => ends.push(end) });
    await tracker.watchOrder('ghost');
    await advance(9 * 60_000, 1_000);
    expect(ends).toEqual([]);
    await advance(2 * 60_000, 1_000);
    expect(ends).toEqual([{ kind: 'order', externalId: 'ghost', reason: 'not-found', status: undefined }]);
    expect(seen.log.filter((e) => e.event === 'tracker.give-up')).toEqual([
      { event: 'tracker.give-up', kind: 'order', externalId: 'ghost', reason: 'not-found', status: undefined },
    ]);
    expect((await store.get('order', 'ghost'))?.watching).toBe(false);
    const after = reads.get('ghost');
    await advance(10 * 60_000, 10_000);
    expect(reads.get('ghost')).toBe(after);
  });

  it('a record found once is not ended by a later 404; one that appears within the window is seen', async () => {
    const { records, client } = orders();
    const seen = recorder();
    const ends: unknown[] = [];
    const tracker = track({
      client,
      onChange: seen.onChange,
      logger: false,
      onWatchEnd: (end) => ends.push(end),
      schedule: { notFoundForMs: 60_000 },
    });
    await tracker.watchOrder('late');
    await tracker.watchOrder('gone');
    records.set('gone', 'Pending');
    await advance(50_000, 1_000);
    records.set('late', 'Pending');
    records.delete('gone');
    await advance(30_000, 1_000);
    expect(seen.statuses('late')).toEqual(['Pending']);
    expect(seen.statuses('gone')).toEqual(['Pending']);
    expect(ends).toEqual([]);
    expect(() => createStatusTracker({ client, onChange: () => {}, schedule: { notFoundForMs: -1 } })).toThrow(/notFoundForMs/);
  });
});

describe("watchOrder in the partner's transaction", () => {
  it('passes { transaction } to a transactional store, and refuses it without one', async () => {
    const memory = new MemoryStatusStore();
    const watched: unknown[] = [];
    interface Tx {
      id: string;
    }
    const store: TransactionalStatusStore<Tx> = {
      watch: async (kind, externalId, options) => {
        watched.push([kind, externalId, options]);
        await memory.watch(kind, externalId);
      },
      unwatch: memory.unwatch.bind(memory),
      nudge: memory.nudge.bind(memory),
      claimDue: memory.claimDue.bind(memory),
      extend: memory.extend.bind(memory),
      commit: memory.commit.bind(memory),
      reschedule: memory.reschedule.bind(memory),
      release: memory.release.bind(memory),
      reclaim: memory.reclaim.bind(memory),
      get: memory.get.bind(memory),
      transact: async (lease, status, turn, work) => {
        await work({ id: 'store-tx' });
        return memory.commit(lease, status, turn);
      },
    };
    const { client } = orders();
    const tracker = createStatusTracker({ client, store, onChange: () => {}, logger: false });
    await tracker.watchOrder('o-5', { transaction: { id: 'partner-tx' } });
    await tracker.watchWithdrawal('w-5', { transaction: { id: 'partner-tx' } });
    await tracker.watchOrder('o-6');
    expect(watched).toEqual([
      ['order', 'o-5', { transaction: { id: 'partner-tx' } }],
      ['withdrawal', 'w-5', { transaction: { id: 'partner-tx' } }],
      ['order', 'o-6', undefined],
    ]);
    const plain = createStatusTracker({ client, store: memory, onChange: () => {}, logger: false });
    await expect((plain.watchOrder as (id: string, options: unknown) => Promise<void>)('o-7', { transaction: {} })).rejects.toThrow(
      /transactional store/,
    );
    await expect((plain.watchOrder as (id: string, options: unknown) => Promise<void>)('o-7', 5)).rejects.toThrow(TypeError);
  });
});
