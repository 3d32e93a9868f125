import { MemoryEventStore } from 'checkout-partner-sdk/webhooks';
import { LeaseLostError, type ClaimResult } from 'checkout-partner-sdk/stores';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eventStoreContract } from './event-store-contract.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'performance'], now: new Date('2026-01-01T00:00:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The lease of a claim that must have been taken. */
function leaseOf(result: ClaimResult): unknown {
  if (typeof result !== 'object') throw new Error(`expected a claim, got ${result}`);
  return result.lease;
}

/** Claims `eventId` and completes it with that claim's lease. */
async function handled(store: MemoryEventStore, eventId: string, leaseMs = 60_000): Promise<void> {
  await store.complete(eventId, leaseOf(await store.claim(eventId, leaseMs)));
}

describe('MemoryEventStore: the EventStore contract', () => {
  // one instance is the whole fleet; its clock is a manual one
  eventStoreContract(() => {
    let now = 0;
    const store = new MemoryEventStore({ clock: () => now });
    return {
      a: store,
      b: store,
      advance: async (ms) => {
        now += ms;
      },
    };
  });
});

describe('MemoryEventStore', () => {
  it('rejects a late complete with LeaseLostError, naming the event, and leaves the new claim alone', async () => {
    const store = new MemoryEventStore();
    const first = leaseOf(await store.claim('e-1', 5_000));
    vi.advanceTimersByTime(5_000); // the first worker's lease runs out; a redelivery claims it
    const second = leaseOf(await store.claim('e-1', 5_000));
    const error = await store.complete('e-1', first).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({
      name: 'LeaseLostError',
      eventId: 'e-1',
      message: expect.stringMatching(/lease .*ran out.*another worker claimed/),
    });
    expect(await store.claim('e-1', 5_000)).toBe('in-flight');
    await store.complete('e-1', second);
    expect(await store.claim('e-1', 5_000)).toBe('done');
  });

  it('keeps a long id and a literal id spelling its hashed key apart (ids are used as they are)', async () => {
    const store = new MemoryEventStore();
    const long = 'x'.repeat(300);
    const digest = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(long))).toString('hex');
    await handled(store, long);
    expect(await store.claim(`sha256:${digest}`, 60_000)).toMatchObject({ status: 'claimed' });
    expect(await store.claim(long, 60_000)).toBe('done');
  });

  it('forgets a done event after ttlMs', async () => {
    const store = new MemoryEventStore({ ttlMs: 10_000 });
    await handled(store, 'e-1', 1_000);
    vi.advanceTimersByTime(9_999);
    expect(await store.claim('e-1', 1_000)).toBe('done');
    vi.advanceTimersByTime(1);
    expect(await store.claim('e-1', 1_000)).toMatchObject({ status: 'claimed' });
  });

  it('evicts the least recently used entry past maxEntries', async () => {
    const store = new MemoryEventStore({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c']) await handled(store, id);
    expect(await store.claim('a', 60_000)).toBe('done'); // a is now the most recently used
    await store.claim('d', 60_000); // evicts b
    expect(store.size).toBe(3);
    expect(await store.claim('b', 60_000)).toMatchObject({ status: 'claimed' }); // b was forgotten; evicts c
    expect(await store.claim('a', 60_000)).toBe('done');
    expect(await store.claim('d', 60_000)).toBe('in-flight');
    expect(store.size).toBe(3);
  });

  it('stays within maxEntries under many events', async () => {
    const store = new MemoryEventStore({ maxEntries: 100 });
    for (let i = 0; i < 1_000; i += 1) await handled(store, `e-${i}`);
    expect(store.size).toBe(100);
    expect(await store.claim('e-999', 1)).toBe('done');
    expect(await store.claim('e-0', 1)).toMatchObject({ status: 'claimed' });
  });

  it('sweeps expired entries as it writes', async () => {
    const store = new MemoryEventStore({ ttlMs: 1_000 });
    for (let i = 0; i < 10; i += 1) await handled(store, `old-${i}`, 500);
    vi.advanceTimersByTime(2_000);
    for (let i = 0; i < 5; i += 1) await store.claim(`new-${i}`, 500);
    expect(store.size).toBe(5);
  });

  it('keeps evicting the least recently used once full, over 300,000 events', async () => {
    const store = new MemoryEventStore({ maxEntries: 1_000 });
    await handled(store, 'hot');
    const total = 300_000;
    for (let i = 0; i < total; i += 1) {
      // plain checks in this loop: 300,000 expect() calls would take most of the test's time
      const claim = await store.claim(`e-${i}`, 60_000);
      if (typeof claim !== 'object') throw new Error(`e-${i} was not new`);
      await store.complete(`e-${i}`, claim.lease);
      // a redelivery of 'hot' every 500 events makes it recently used again, so it is never evicted
      if (i % 500 === 0 && (await store.claim('hot', 60_000)) !== 'done') throw new Error(`'hot' was evicted at ${i}`);
      if (store.size > 1_000) throw new Error(`size ${store.size} after ${i + 1} events`);
    }
    expect(store.size).toBe(1_000);
    // 'hot' holds one slot, the 999 most recent events the others
    for (let i = total - 999; i < total; i += 1) expect(await store.claim(`e-${i}`, 60_000)).toBe('done');
    expect(await store.claim('hot', 60_000)).toBe('done');
    // the ones before were evicted, so they can be claimed again (each claim evicts the oldest)
    expect(await store.claim(`e-${total - 1_000}`, 60_000)).toMatchObject({ status: 'claimed' });
    expect(await store.claim('e-0', 60_000)).toMatchObject({ status: 'claimed' });
    expect(await store.claim(`e-${total / 2}`, 60_000)).toMatchObject({ status: 'claimed' });
    expect(store.size).toBe(1_000);
    // those 3 claims evicted the 3 least recently used: the oldest 3 of the confirmed recent ones
    for (let i = total - 999; i < total - 996; i += 1) expect(await store.claim(`e-${i}`, 60_000)).toMatchObject({ status: 'claimed' });
    expect(await store.claim(`e-${total - 1}`, 60_000)).toBe('done');
  }, 60_000);

  it('evicts past an oldest entry that was redelivered or released', async () => {
    const store = new MemoryEventStore({ maxEntries: 2 });
    const x = leaseOf(await store.claim('x', 60_000)); // in flight, the oldest
    await handled(store, 'y');
    await store.release('x', x); // the oldest leaves
    await store.claim('z', 60_000); // fits: y, z
    expect(store.size).toBe(2);
    expect(await store.claim('y', 60_000)).toBe('done'); // y is now the most recently used: z, y
    await store.claim('w', 60_000); // evicts z
    expect(await store.claim('y', 60_000)).toBe('done');
    expect(await store.claim('w', 60_000)).toBe('in-flight');
    expect(await store.claim('z', 60_000)).toMatchObject({ status: 'claimed' }); // evicts w
    expect(await store.claim('w', 60_000)).toMatchObject({ status: 'claimed' });
  });

  it('behaves as a plain LRU + TTL model under any sequence of calls', async () => {
    const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
    const step = fc.oneof(
      fc.record({ op: fc.constant('claim' as const), id, leaseMs: fc.integer({ min: 1, max: 6 }) }),
      fc.record({ op: fc.constant('complete' as const), id }),
      fc.record({ op: fc.constant('release' as const), id }),
      fc.record({ op: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 8 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(step, { maxLength: 300 }),
        async (maxEntries, ttlMs, steps) => {
          const store = new MemoryEventStore({ maxEntries, ttlMs });
          const model = new LruModel(maxEntries, ttlMs);
          // complete and release go through the last lease taken on the event: any other entry of
          // it now is done, gone or expired, where the store acts as the model does
          const leases = new Map<string, unknown>();
          for (const s of steps) {
            if (s.op === 'claim') {
              const result = await store.claim(s.id, s.leaseMs);
              if (typeof result === 'object') leases.set(s.id, result.lease);
              expect(statusOf(result)).toBe(model.claim(s.id, s.leaseMs));
            } else if (s.op === 'wait') vi.advanceTimersByTime(s.ms);
            else if (leases.has(s.id)) {
              const lease = leases.get(s.id);
              if (s.op === 'complete') await Promise.all([store.complete(s.id, lease), model.complete(s.id)]);
              else await Promise.all([store.release(s.id, lease), model.release(s.id)]);
            }
            expect(store.size).toBe(model.size);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps leases and the done TTL on a monotonic clock: a wall-clock step of ±1 hour moves neither', async () => {
    const store = new MemoryEventStore({ ttlMs: 2 * 3_600_000 });
    const step = (ms: number) => {
      const monotonic = performance.now();
      vi.setSystemTime(Date.now() + ms);
      expect(performance.now()).toBe(monotonic); // the fake wall clock moved, the monotonic one did not
    };
    expect(await store.claim('e-1', 60_000)).toMatchObject({ status: 'claimed' });
    // forward 1 hour mid-lease: the lease is still live
    step(3_600_000);
    expect(await store.claim('e-1', 60_000)).toBe('in-flight');
    // back 1 hour (then back again): the lease still ends 60 s after the claim, not an hour later
    step(-2 * 3_600_000);
    vi.advanceTimersByTime(59_999);
    expect(await store.claim('e-1', 60_000)).toBe('in-flight');
    vi.advanceTimersByTime(1);
    const claimed = await store.claim('e-1', 60_000);
    expect(claimed).toMatchObject({ status: 'claimed' });
    await store.complete('e-1', leaseOf(claimed));
    // done for ttlMs (2 h) of monotonic time, whatever the wall clock does
    step(10 * 3_600_000);
    expect(await store.claim('e-1', 60_000)).toBe('done');
    step(-20 * 3_600_000);
    vi.advanceTimersByTime(2 * 3_600_000 - 1);
    expect(await store.claim('e-1', 60_000)).toBe('done');
    vi.advanceTimersByTime(2 * 3_600_000);
    expect(await store.claim('e-1', 60_000)).toMatchObject({ status: 'claimed' });
  });

  it('takes a clock of its own (a manual one in tests)', async () => {
    let now = 0;
    const store = new MemoryEventStore({ clock: () => now });
    expect(await store.claim('e-1', 1_000)).toMatchObject({ status: 'claimed' });
    now = 999;
    expect(await store.claim('e-1', 1_000)).toBe('in-flight');
    now = 1_000;
    expect(await store.claim('e-1', 1_000)).toMatchObject({ status: 'claimed' });
    expect(() => new MemoryEventStore({ clock: 'now' as never })).toThrow(/clock/);
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
    await expect(store.complete(undefined as never, undefined)).rejects.toThrow(TypeError);
    await expect(store.release(null as never, undefined)).rejects.toThrow(TypeError);
  });
});

/** The claim's outcome as a word: `"claimed"` for a `{ status: "claimed", lease }`. */
function statusOf(result: ClaimResult): 'claimed' | 'in-flight' | 'done' {
  return typeof result === 'object' ? result.status : result;
}

/**
 * The documented behaviour, written as plainly as possible: entries in an array from least to most
 * recently used; each write moves its entry to the end, then drops up to 2 expired entries from the
 * front (the store's sweep per write) and the front entries past maxEntries.
 */
class LruModel {
  readonly #entries: { id: string; expiry: number }[] = [];
  constructor(
    readonly maxEntries: number,
    readonly ttlMs: number,
  ) {}
  get size(): number {
    return this.#entries.length;
  }
  claim(id: string, leaseMs: number): 'claimed' | 'in-flight' | 'done' {
    const now = Date.now();
    const entry = this.#entries.find((e) => e.id === id);
    if (entry !== undefined && Math.abs(entry.expiry) > now) {
      if (entry.expiry > 0) return 'in-flight';
      this.#write(id, entry.expiry, now);
      return 'done';
    }
    this.#write(id, now + leaseMs, now);
    return 'claimed';
  }
  async complete(id: string): Promise<void> {
    this.#write(id, -(Date.now() + this.ttlMs), Date.now());
  }
  async release(id: string): Promise<void> {
    const at = this.#entries.findIndex((e) => e.id === id);
    if (at >= 0 && (this.#entries[at] as { expiry: number }).expiry > 0) this.#entries.splice(at, 1);
  }
  #write(id: string, expiry: number, now: number): void {
    const at = this.#entries.findIndex((e) => e.id === id);
    if (at >= 0) this.#entries.splice(at, 1);
    this.#entries.push({ id, expiry });
    for (
      let swept = 0;
      swept < 2 && this.#entries.length > 0 && Math.abs((this.#entries[0] as { expiry: number }).expiry) <= now;
      swept += 1
    ) {
      this.#entries.shift();
    }
    while (this.#entries.length > this.maxEntries) this.#entries.shift();
  }
}
