import { describe } from '../internal/path.js';
import type { ClaimResult, EventStore } from './store.js';

/** Options of {@link MemoryEventStore}. */
export interface MemoryEventStoreOptions {
  /**
   * How many events it remembers. Past this the least recently used entry is dropped, so memory
   * stays bounded (an entry is a few dozen bytes plus its eventId).
   * @default 100_000
   */
  maxEntries?: number | undefined;
  /**
   * How long a completed event is remembered, in milliseconds: a redelivery within this time is
   * answered "done". Set it longer than the provider's retry window.
   * @default 86_400_000 (24 hours)
   */
  ttlMs?: number | undefined;
}

/** How many of the oldest entries each write looks at to drop the expired ones. */
const SWEEP_PER_WRITE = 2;

/**
 * An {@link EventStore} in this process's memory: right for one process (and for tests). Several
 * processes or machines need a shared store such as `RedisEventStore` from
 * `checkout-partner-sdk/redis`.
 *
 * Bounded by `maxEntries` (least recently used first out) and `ttlMs`; an in-flight claim whose
 * lease has passed can be claimed again. Each entry is one `Map` slot: the eventId and one number,
 * the expiry time, positive while in flight and negated once done.
 *
 * @example
 * const store = new MemoryEventStore({ maxEntries: 10_000, ttlMs: 6 * 60 * 60 * 1000 });
 * const handler = createWebhookHandler({ secret, client, onEvent, store });
 */
export class MemoryEventStore implements EventStore {
  /** eventId → expiry in epoch ms: `+t` in flight until t, `-t` done until t. Insertion order is LRU order. */
  readonly #entries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;

  constructor(options: MemoryEventStoreOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`MemoryEventStore options must be an object, got ${describe(options)}`);
    }
    const { maxEntries = 100_000, ttlMs = 86_400_000 } = options;
    if (typeof maxEntries !== 'number' || !Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new TypeError(`maxEntries must be a whole number of at least 1, got ${String(maxEntries)}`);
    }
    if (typeof ttlMs !== 'number' || !(ttlMs > 0) || !Number.isFinite(ttlMs)) {
      throw new TypeError(`ttlMs must be a positive number of milliseconds, got ${String(ttlMs)}`);
    }
    this.#maxEntries = maxEntries;
    this.#ttlMs = ttlMs;
  }

  /** How many events it holds now (expired ones included until they are swept or evicted). */
  get size(): number {
    return this.#entries.size;
  }

  async claim(eventId: string, leaseMs: number): Promise<ClaimResult> {
    checkEventId(eventId);
    if (typeof leaseMs !== 'number' || !(leaseMs > 0) || !Number.isFinite(leaseMs)) {
      throw new TypeError(`leaseMs must be a positive number of milliseconds, got ${String(leaseMs)}`);
    }
    const now = Date.now();
    const entry = this.#entries.get(eventId);
    if (entry !== undefined && Math.abs(entry) > now) {
      if (entry > 0) return 'in-flight';
      this.#set(eventId, entry, now); // a redelivered event is a recently used one
      return 'done';
    }
    this.#set(eventId, now + leaseMs, now);
    return 'claimed';
  }

  async complete(eventId: string): Promise<void> {
    checkEventId(eventId);
    const now = Date.now();
    this.#set(eventId, -(now + this.#ttlMs), now);
  }

  async release(eventId: string): Promise<void> {
    checkEventId(eventId);
    const entry = this.#entries.get(eventId);
    if (entry !== undefined && entry > 0) this.#entries.delete(eventId);
  }

  #set(eventId: string, value: number, now: number): void {
    const entries = this.#entries;
    entries.delete(eventId);
    entries.set(eventId, value);
    let swept = 0;
    for (const [key, expiry] of entries) {
      if (swept >= SWEEP_PER_WRITE || Math.abs(expiry) > now) break;
      entries.delete(key);
      swept += 1;
    }
    while (entries.size > this.#maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done === true) break;
      entries.delete(oldest.value);
    }
  }
}

function checkEventId(eventId: unknown): asserts eventId is string {
  if (typeof eventId !== 'string' || eventId === '') {
    throw new TypeError(`eventId must be a non-empty string, got ${eventId === '' ? 'an empty string' : describe(eventId)}`);
  }
}
