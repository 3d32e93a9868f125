import { CheckoutError } from 'checkout-partner-sdk';
import { MemoryStatusStore, StatusStoreFullError } from 'checkout-partner-sdk/tracker';
import { describe, expect, it } from 'vitest';
import { statusStoreContract, statusStoreMetricsContract, type StoreUnderTest } from './store-contract.js';

type MemoryStatusStoreOptions = NonNullable<ConstructorParameters<typeof MemoryStatusStore>[0]>;

/** A store on a manual clock (starting far from 0, like epoch milliseconds) and the clock's hand. */
function manual(options: MemoryStatusStoreOptions = {}): StoreUnderTest & { store: MemoryStatusStore } {
  let now = 1_700_000_000_000;
  const store = new MemoryStatusStore({ ...options, clock: () => now });
  return {
    store,
    advance: async (ms) => {
      now += ms;
    },
  };
}

describe('MemoryStatusStore: the StatusStore contract', () => {
  statusStoreContract(() => manual());
});

describe('MemoryStatusStore: what it gives the metrics (dueAt, countWatched)', () => {
  statusStoreMetricsContract(() => manual());
});

describe('MemoryStatusStore bounds', () => {
  it('drops ended watches first (oldest first) and refuses a watch when every record is watched', async () => {
    const { store } = manual({ maxRecords: 2 });
    await store.watch('order', 'a');
    await store.watch('order', 'b');
    const error = await store.watch('order', 'c').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StatusStoreFullError);
    expect(error).toBeInstanceOf(CheckoutError);
    const [a] = await store.claimDue({ limit: 1, leaseMs: 100, owner: 'x' });
    await store.commit(a!.lease, 'Settled', { failures: 0, next: { end: 'final' } });
    await store.watch('order', 'c');
    expect(await store.get('order', a!.externalId)).toBeUndefined();
    expect(store.size).toBe(2);
  });

  it('forgets an ended watch after retentionMs', async () => {
    const { store, advance } = manual({ retentionMs: 1_000 });
    await store.watch('order', 'a');
    const [a] = await store.claimDue({ limit: 1, leaseMs: 100, owner: 'x' });
    await store.commit(a!.lease, 'Settled', { failures: 0, next: { end: 'final' } });
    await advance(999);
    await store.claimDue({ limit: 1, leaseMs: 100, owner: 'x' });
    expect((await store.get('order', 'a'))?.handled?.status).toBe('Settled');
    await advance(1);
    await store.claimDue({ limit: 1, leaseMs: 100, owner: 'x' });
    expect(await store.get('order', 'a')).toBeUndefined();
  });

  it('keeps its heap near the number of records under constant rescheduling', async () => {
    const { store, advance } = manual();
    for (let i = 0; i < 100; i += 1) await store.watch('order', `o-${i}`);
    for (let round = 0; round < 50; round += 1) {
      await store.nudge('order', `o-${round}`, {});
      const claimed = await store.claimDue({ limit: 100, leaseMs: 10, owner: 'x' });
      for (const record of claimed) await store.reschedule(record.lease, { failures: 0, next: { delayMs: 1 } });
      await advance(1);
    }
    expect(store.size).toBe(100);
  });

  it('refuses a clock that is not a function', () => {
    expect(() => new MemoryStatusStore({ clock: 5 as never })).toThrow(TypeError);
  });
});
