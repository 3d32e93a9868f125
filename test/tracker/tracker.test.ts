import { createEvent, playTimeline } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MemoryStatusStore, type StatusChange } from 'checkout-partner-sdk/tracker';
import { describe, expect, it, vi } from 'vitest';
import { reached } from '../helpers/fake-time.js';
import { fakeService, recorder, trackerHarness } from './helpers.js';

const FAST = 2_000;
const track = trackerHarness();

describe('createStatusTracker on MemoryStatusStore', () => {
  it('hands every distinct status to onChange once, in order, and stops reading at a final status', async () => {
    const { fake, client, reads, advance } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
    const tracker = track({ client, store: new MemoryStatusStore(), onChange: seen.onChange, logger: seen.logger });
    await tracker.watchOrder('o-1');
    playTimeline(fake, [
      { atMs: 7_000, order: 'o-1', patch: { settlement: { status: 'Processing' } } },
      { atMs: 15_000, order: 'o-1', patch: { settlement: { status: 'Settled' } } },
    ]);
    await advance(30_000);
    expect(seen.statuses('o-1')).toEqual(['Pending', 'Processing', 'Settled']);
    expect(seen.changes.map((c) => c.previousStatus)).toEqual([undefined, 'Pending', 'Processing']);
    // the first change has no previous status at all: the field is left out, not set to undefined
    expect(Object.hasOwn(seen.changes[0]!, 'previousStatus')).toBe(false);
    expect(seen.changes.every((c) => c.source === 'poll' && c.kind === 'order')).toBe(true);
    expect(seen.log.some((e) => e.event === 'tracker.ended' && e.externalId === 'o-1')).toBe(true);
    const readsAtEnd = reads.get('o-1');
    await advance(600_000);
    expect(reads.get('o-1')).toBe(readsAtEnd);
    expect(seen.changes).toHaveLength(3);
  });

  it('sees a BRZ order (no trade, no webhook) settle by polling alone', async () => {
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'brz-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    const tracker = track({ client, onChange: seen.onChange });
    await tracker.watchOrder('brz-1');
    playTimeline(fake, [{ atMs: 45_000, order: 'brz-1', patch: { settlement: { status: 'Settled' } } }]);
    await advance(50_000);
    expect(seen.statuses('brz-1')).toEqual(['Pending', 'Settled']);
    const settled = seen.changes[1]!;
    expect(settled.kind === 'order' && settled.record.currency).toBe('BRZ');
  });

  it('an early event closes nothing: the change arrives (with the event) when a read shows it', async () => {
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'o-2', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-2' } });
    // slow schedule, so only the nudge's fast pace can see the change within the test
    const tracker = track({ client, onChange: seen.onChange, schedule: { fastForMs: 1, fastIntervalMs: FAST, maxIntervalMs: 300_000 } });
    const event = createEvent('otc.trade.settled', { tradeId: 't-2' });
    await tracker.nudge('order', 'o-2', { event });
    await advance(1_000);
    expect(seen.statuses('o-2')).toEqual(['Pending']);
    expect(seen.changes[0]!.source).toBe('webhook');
    // the event came before the read agrees: the record stays at the fast pace until it does
    await advance(10_000);
    fake.settleOrder('o-2');
    await advance(5_000);
    expect(seen.statuses('o-2')).toEqual(['Pending', 'Settled']);
    expect(seen.changes[1]!.source).toBe('webhook');
    expect(seen.changes[1]!.event?.eventId).toBe(event.eventId);
  });

  it('five copies of an event and a replay after the change give one call', async () => {
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'o-3', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-3' } });
    const store = new MemoryStatusStore();
    const tracker = track({ client, store, onChange: seen.onChange });
    const event = createEvent('otc.trade.settled', { tradeId: 't-3' });
    await Promise.all(Array.from({ length: 5 }, () => tracker.nudge('order', 'o-3', { event })));
    await advance(10_000);
    expect(seen.statuses('o-3')).toEqual(['Settled']);
    expect((await store.get('order', 'o-3'))?.watching).toBe(false);
    // the provider replays it weeks later (past any dedupe TTL): read again, same status, no call
    vi.setSystemTime(Date.now() + 14 * 24 * 3600_000);
    await tracker.nudge('order', 'o-3', { event });
    await advance(10_000);
    expect(seen.statuses('o-3')).toEqual(['Settled']);
    expect((await store.get('order', 'o-3'))?.watching).toBe(false);
  });

  it('a throwing onChange is handed the same change again until it succeeds', async () => {
    const { fake, client, advance } = fakeService();
    fake.setWithdrawal({ externalId: 'w-1', status: 'Completed' });
    const calls: StatusChange[] = [];
    const seen = recorder();
    const tracker = track({
      client,
      logger: seen.logger,
      onChange: (change) => {
        calls.push(change);
        if (calls.length < 4) throw new Error(`partner database down (${calls.length})`);
      },
    });
    await tracker.watchWithdrawal('w-1');
    await advance(60_000);
    expect(calls.map((c) => [c.kind, c.status, c.previousStatus])).toEqual(Array(4).fill(['withdrawal', 'Completed', undefined]));
    expect(seen.log.filter((e) => e.event === 'tracker.change-failed')).toHaveLength(3);
    expect(seen.log.filter((e) => e.event === 'tracker.change')).toHaveLength(1);
    await advance(600_000);
    expect(calls).toHaveLength(4);
  });

  it('keeps watching a record that is not created yet (404), and sees it once it is', async () => {
    const { fake, client, advance } = fakeService();
    const seen = recorder();
    const tracker = track({ client, onChange: seen.onChange, logger: seen.logger });
    await tracker.watchOrder('later-1');
    await advance(10_000);
    expect(seen.log.some((e) => e.event === 'tracker.read' && e.outcome === 'not-found')).toBe(true);
    fake.setOrder({ externalId: 'later-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-9' } });
    await advance(5_000);
    expect(seen.statuses('later-1')).toEqual(['Pending']);
  });

  it('gives up after maxAgeMs without a final status, and reports it', async () => {
    const { fake, client, reads, advance } = fakeService();
    const seen = recorder();
    const ends: unknown[] = [];
    fake.setOrder({ externalId: 'o-4', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-4' } });
    const tracker = track({
      client,
      onChange: seen.onChange,
      logger: seen.logger,
      onWatchEnd: (end) => ends.push(end),
      schedule: { maxAgeMs: 3_600_000 },
    });
    await tracker.watchOrder('o-4');
    await advance(2 * 3_600_000, 1_000);
    expect(ends).toEqual([{ kind: 'order', externalId: 'o-4', reason: 'max-age', status: 'Pending' }]);
    expect(seen.log.filter((e) => e.event === 'tracker.give-up')).toHaveLength(1);
    const after = reads.get('o-4');
    // the schedule backed off: far fewer reads than one per 2 s over the hour
    expect(after).toBeLessThan(3_600_000 / FAST / 4);
    await advance(3_600_000, 10_000);
    expect(reads.get('o-4')).toBe(after);
  });

  it('unwatch stops the reads; drain finishes what is in hand and stops claiming', async () => {
    const { fake, client, reads, advance } = fakeService();
    const seen = recorder();
    fake.setOrder({ externalId: 'o-5', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-5' } });
    fake.setOrder({ externalId: 'o-6', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-6' } });
    const tracker = track({ client, onChange: seen.onChange });
    await tracker.watchOrder('o-5');
    await tracker.watchOrder('o-6');
    await advance(5_000);
    await tracker.unwatch('order', 'o-5');
    const o5 = reads.get('o-5');
    await advance(10_000);
    expect(reads.get('o-5')).toBe(o5);
    const report = await tracker.drain({ timeoutMs: 1_000 });
    expect(report).toEqual({ drained: true, inHand: [] });
    const o6 = reads.get('o-6');
    await advance(10_000);
    expect(reads.get('o-6')).toBe(o6);
  });

  it('refuses bad arguments with a TypeError', async () => {
    const { client } = fakeService();
    expect(() => createStatusTracker({ client, onChange: 1 as never })).toThrow(TypeError);
    expect(() => createStatusTracker({ client, onChange: () => {}, bogus: 1 } as never)).toThrow(/unknown option "bogus"/);
    expect(() => createStatusTracker({ client, onChange: () => {}, logger: 'console' as never })).toThrow(/logger must be/);
    expect(() => createStatusTracker({ client, onChange: () => {}, logger: false })).not.toThrow();
    expect(() => createStatusTracker({ client, onChange: () => {}, schedule: { jitter: 2 } })).toThrow(/jitter/);
    expect(() => createStatusTracker({ client, onChange: () => {}, schedule: { fastIntervallMs: 1_000 } as never })).toThrow(
      /schedule: unknown option "fastIntervallMs" \(did you mean "fastIntervalMs"\?\)/,
    );
    expect(() => createStatusTracker({ client, onChange: () => {}, schedule: 5 as never })).toThrow(TypeError);
    const tracker = createStatusTracker({ client, onChange: () => {} });
    await expect(tracker.watchOrder('')).rejects.toThrow(TypeError);
    await expect(tracker.nudge('trade' as never, 'x')).rejects.toThrow(/kind/);
  });
});

describe('createStatusTracker: a read that outlives its lease', () => {
  it('hands nothing over: the process that took the record meanwhile does, once', async () => {
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'slow-read', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't' } });
    const store = new MemoryStatusStore();
    const calls: string[] = [];
    const onChange = (change: StatusChange) => void calls.push(change.source);
    let slowReads = 0;
    // process A: its first read takes 1.6 s, past its 1 s lease
    const slow = {
      getOrderByExternalId: async (id: string, options?: { signal?: AbortSignal }) => {
        if (slowReads++ === 0) await new Promise((resolve) => setTimeout(resolve, 1_600));
        return client.getOrderByExternalId(id, options);
      },
      getWithdrawalByExternalId: client.getWithdrawalByExternalId.bind(client),
    };
    // logger: false: its lease-lost line is expected here (the stderr line itself is tested in failures-visible.test.ts)
    const a = track({ client: slow, store, onChange, leaseMs: 1_000, readTimeoutMs: 5_000, claimIntervalMs: 20, logger: false });
    await a.watchOrder('slow-read');
    await advance(300);
    // process B starts once A holds the record
    track({ client, store, onChange, leaseMs: 1_000, claimIntervalMs: 20 });
    await advance(2_500);
    expect(calls).toEqual(['poll']);
    expect((await store.get('order', 'slow-read'))?.watching).toBe(false);
  });
});

describe('createStatusTracker: drain', () => {
  it('gives back a record whose read is in flight, so another process can take it at once', async () => {
    const store = new MemoryStatusStore();
    let started = 0;
    const hanging = {
      // a read that ends only when its signal aborts
      getOrderByExternalId: (_id: string, options?: { signal?: AbortSignal }) => {
        started += 1;
        return new Promise<never>((_, reject) =>
          options?.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true }),
        );
      },
      getWithdrawalByExternalId: () => Promise.reject(new Error('unused')),
    };
    const tracker = createStatusTracker({ client: hanging, store, onChange: () => {}, claimIntervalMs: 10 });
    tracker.start();
    await tracker.watchOrder('in-flight');
    await reached(() => started > 0, 'the read started');
    expect(started).toBe(1);
    expect(await store.claimDue({ limit: 1, leaseMs: 1_000, owner: 'other' })).toEqual([]);
    expect(await tracker.drain({ timeoutMs: 2_000 })).toEqual({ drained: true, inHand: [] });
    const [taken] = await store.claimDue({ limit: 1, leaseMs: 1_000, owner: 'other' });
    expect(taken?.externalId).toBe('in-flight');
  });
});
