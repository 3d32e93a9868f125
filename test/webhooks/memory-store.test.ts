import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MemoryEventStore } from 'checkout-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:00:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('MemoryEventStore', () => {
  it('claims, reports in-flight, completes and reports done', async () => {
    const store = new MemoryEventStore();
    expect(await store.claim('e-1', 1_000)).toBe('claimed');
    expect(await store.claim('e-1', 1_000)).toBe('in-flight');
    await store.complete('e-1');
    expect(await store.claim('e-1', 1_000)).toBe('done');
    expect(await store.claim('e-2', 1_000)).toBe('claimed');
  });

  it('lets a released claim be claimed at once, but never un-does a done event', async () => {
    const store = new MemoryEventStore();
    await store.claim('e-1', 60_000);
    await store.release('e-1');
    expect(await store.claim('e-1', 60_000)).toBe('claimed');
    await store.complete('e-1');
    await store.release('e-1');
    expect(await store.claim('e-1', 60_000)).toBe('done');
    await store.release('never-seen');
    expect(store.size).toBe(1);
  });

  it('lets an expired lease be claimed again', async () => {
    const store = new MemoryEventStore();
    expect(await store.claim('e-1', 5_000)).toBe('claimed');
    vi.advanceTimersByTime(4_999);
    expect(await store.claim('e-1', 5_000)).toBe('in-flight');
    vi.advanceTimersByTime(1);
    expect(await store.claim('e-1', 5_000)).toBe('claimed');
  });

  it('forgets a done event after ttlMs', async () => {
    const store = new MemoryEventStore({ ttlMs: 10_000 });
    await store.claim('e-1', 1_000);
    await store.complete('e-1');
    vi.advanceTimersByTime(9_999);
    expect(await store.claim('e-1', 1_000)).toBe('done');
    vi.advanceTimersByTime(1);
    expect(await store.claim('e-1', 1_000)).toBe('claimed');
  });

  it('evicts the least recently used entry past maxEntries', async () => {
    const store = new MemoryEventStore({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c']) {
      await store.claim(id, 60_000);
      await store.complete(id);
    }
    expect(await store.claim('a', 60_000)).toBe('done'); // a is now the most recently used
    await store.claim('d', 60_000); // evicts b
    expect(store.size).toBe(3);
    expect(await store.claim('b', 60_000)).toBe('claimed'); // b was forgotten; evicts c
    expect(await store.claim('a', 60_000)).toBe('done');
    expect(await store.claim('d', 60_000)).toBe('in-flight');
    expect(store.size).toBe(3);
  });

  it('stays within maxEntries under many events', async () => {
    const store = new MemoryEventStore({ maxEntries: 100 });
    for (let i = 0; i < 1_000; i += 1) {
      await store.claim(`e-${i}`, 60_000);
      await store.complete(`e-${i}`);
    }
    expect(store.size).toBe(100);
    expect(await store.claim('e-999', 1)).toBe('done');
    expect(await store.claim('e-0', 1)).toBe('claimed');
  });

  it('sweeps expired entries as it writes', async () => {
    const store = new MemoryEventStore({ ttlMs: 1_000 });
    for (let i = 0; i < 10; i += 1) {
      await store.claim(`old-${i}`, 500);
      await store.complete(`old-${i}`);
    }
    vi.advanceTimersByTime(2_000);
    for (let i = 0; i < 5; i += 1) await store.claim(`new-${i}`, 500);
    expect(store.size).toBe(5);
  });

  it('rejects bad options and arguments with TypeError', async () => {
    expect(() => new MemoryEventStore({ maxEntries: 0 })).toThrow(TypeError);
    expect(() => new MemoryEventStore({ maxEntries: 1.5 })).toThrow(/maxEntries/);
    expect(() => new MemoryEventStore({ ttlMs: -1 })).toThrow(/ttlMs/);
    expect(() => new MemoryEventStore({ ttlMs: Number.POSITIVE_INFINITY })).toThrow(/ttlMs/);
    expect(() => new MemoryEventStore(null as never)).toThrow(TypeError);
    const store = new MemoryEventStore();
    await expect(store.claim('', 1_000)).rejects.toThrow(/eventId/);
    await expect(store.claim(5 as never, 1_000)).rejects.toThrow(TypeError);
    await expect(store.claim('e', 0)).rejects.toThrow(/leaseMs/);
    await expect(store.complete(undefined as never)).rejects.toThrow(TypeError);
    await expect(store.release(null as never)).rejects.toThrow(TypeError);
  });
});

describe('MemoryEventStore memory', () => {
  it('holds 100k events in under 256 bytes each', () => {
    vi.useRealTimers();
    const script = fileURLToPath(new URL('./fixtures/memory-per-entry.ts', import.meta.url));
    const output = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 60_000,
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    });
    const { bytesPerEntry, size } = JSON.parse(output) as { bytesPerEntry: number; size: number };
    expect(size).toBe(100_000);
    expect(bytesPerEntry).toBeGreaterThan(0);
    expect(bytesPerEntry).toBeLessThan(256);
  }, 60_000);
});
