import { CheckoutError } from 'checkout-partner-sdk';
import { MemoryStatusStore, StatusStoreFullError } from 'checkout-partner-sdk/tracker';
import { describe, expect, it } from 'vitest';
import { statusStoreContract, statusStoreMetricsContract } from './store-contract.js';

describe('MemoryStatusStore: the StatusStore contract', () => {
  statusStoreContract(() => new MemoryStatusStore());
});

describe('MemoryStatusStore: what it gives the metrics (dueAt, countWatched)', () => {
  statusStoreMetricsContract(() => new MemoryStatusStore());
});

describe('MemoryStatusStore bounds', () => {
  it('drops ended watches first (oldest first) and refuses a watch when every record is watched', async () => {
    const store = new MemoryStatusStore({ maxRecords: 2 });
    const T = 1_000;
    await store.watch('order', 'a', T);
    await store.watch('order', 'b', T);
    const error = await store.watch('order', 'c', T).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StatusStoreFullError);
    expect(error).toBeInstanceOf(CheckoutError);
    const [a] = await store.claimDue({ now: T, limit: 1, leaseMs: 100, owner: 'x' });
    await store.commit(a!.lease, 'Settled', { now: T, failures: 0, next: { end: 'final' } });
    await store.watch('order', 'c', T);
    expect(await store.get('order', a!.externalId)).toBeUndefined();
    expect(store.size).toBe(2);
  });

  it('forgets an ended watch after retentionMs', async () => {
    const store = new MemoryStatusStore({ retentionMs: 1_000 });
    await store.watch('order', 'a', 0);
    const [a] = await store.claimDue({ now: 0, limit: 1, leaseMs: 100, owner: 'x' });
    await store.commit(a!.lease, 'Settled', { now: 10, failures: 0, next: { end: 'final' } });
    await store.claimDue({ now: 500, limit: 1, leaseMs: 100, owner: 'x' });
    expect((await store.get('order', 'a'))?.handled?.status).toBe('Settled');
    await store.claimDue({ now: 1_011, limit: 1, leaseMs: 100, owner: 'x' });
    expect(await store.get('order', 'a')).toBeUndefined();
  });

  it('keeps its heap near the number of records under constant rescheduling', async () => {
    const store = new MemoryStatusStore();
    for (let i = 0; i < 100; i += 1) await store.watch('order', `o-${i}`, 0);
    for (let round = 0; round < 50; round += 1) {
      await store.nudge('order', `o-${round}`, { now: round });
      const claimed = await store.claimDue({ now: round, limit: 100, leaseMs: 10, owner: 'x' });
      for (const record of claimed) await store.reschedule(record.lease, { now: round, failures: 0, next: { delayMs: 1 } });
    }
    expect(store.size).toBe(100);
  });
});
