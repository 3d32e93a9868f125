import { typeName } from '../internal/type-name.js';
import { checkEventId, checkOptions, positiveMs } from '../internal/arguments.js';
import { LeaseLostError } from './errors.js';
import type { ClaimedLease, ClaimOptions, EventStore } from './event-store.js';
import { claimOwner } from './claim-owner.js';
import { quote } from '../internal/quote.js';

/** Options of {@link MemoryEventStore}. @inline */
export interface MemoryEventStoreOptions {
  /** How many events it remembers; past this the least recently used is dropped. @default 100_000 */
  maxEntries?: number | undefined;
  /** How long a completed event is remembered, in milliseconds: keep it longer than the provider retries. @default 86_400_000 (24 hours) */
  ttlMs?: number | undefined;
  /** The store's clock in milliseconds, for leases and TTLs; it must never go back. @default `performance.now()` */
  clock?: (() => number) | undefined;
}

// monotonic: a wall-clock step must neither end a live lease early nor keep an expired one
const monotonicNow = (): number => performance.now();

const SWEEP_PER_WRITE = 2;

let renewLease: (lease: MemoryLease, until: number) => void;

/** An in-flight entry and the claimer's `lease`, compared by identity: only the claim that made it settles or renews through it. */
class MemoryLease {
  #until: number;
  constructor(
    until: number,
    readonly owner: string | undefined,
  ) {
    this.#until = until;
    Object.freeze(this);
  }

  get until(): number {
    return this.#until;
  }

  static {
    renewLease = (lease, until) => {
      lease.#until = until;
    };
  }
}

/** A {@link MemoryLease} while in flight, `-t` once done (remembered until t). */
type Entry = MemoryLease | number;

function expiry(entry: Entry): number {
  return typeof entry === 'number' ? -entry : entry.until;
}

function checkLease(lease: unknown): MemoryLease | undefined {
  if (lease === undefined || lease instanceof MemoryLease) return lease;
  throw new TypeError(`lease must be the lease this store's claim returned, got ${typeName(lease)}`);
}

function checkLeaseMs(leaseMs: unknown): asserts leaseMs is number {
  if (typeof leaseMs !== 'number' || !(leaseMs > 0) || !Number.isFinite(leaseMs)) {
    throw new TypeError(`leaseMs must be a positive number of milliseconds, got ${quote(leaseMs)}`);
  }
}

const MEMORY_EVENT_STORE_OPTIONS = ['maxEntries', 'ttlMs', 'clock'] as const satisfies readonly (keyof MemoryEventStoreOptions)[];

/** An {@link EventStore} in this process's memory, for one process and tests; a late `complete` rejects with {@link LeaseLostError}. */
export class MemoryEventStore implements EventStore {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #clock: () => number;
  /** A cursor to the oldest entry: a fresh `keys()` would step over every deleted slot V8 has not compacted yet, on each write. */
  #cursor: IterableIterator<string> | undefined;
  #head: string | undefined;
  /** An idle cursor pins the tables V8 replaced since its last step: it is let go after `size / 2` idle writes. */
  #idleWrites = 0;

  constructor(options: MemoryEventStoreOptions = {}) {
    checkOptions('MemoryEventStore', options, MEMORY_EVENT_STORE_OPTIONS);
    const { maxEntries = 100_000, ttlMs = 86_400_000 } = options;
    if (typeof maxEntries !== 'number' || !Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new TypeError(`maxEntries must be a whole number of at least 1, got ${quote(maxEntries)}`);
    }
    this.#maxEntries = maxEntries;
    this.#ttlMs = positiveMs('ttlMs', ttlMs, 86_400_000);
    if (options.clock !== undefined && typeof options.clock !== 'function') {
      throw new TypeError(`MemoryEventStore clock must be a function returning milliseconds, got ${typeName(options.clock)}`);
    }
    this.#clock = options.clock ?? monotonicNow;
  }

  /** How many events it holds now, expired ones included until swept. */
  get size(): number {
    return this.#entries.size;
  }

  async claim(eventId: string, leaseMs: number, options?: ClaimOptions): Promise<ClaimedLease | 'in-flight' | 'done'> {
    checkEventId(eventId);
    checkLeaseMs(leaseMs);
    const owner = claimOwner(options);
    const now = this.#clock();
    const entry = this.#entries.get(eventId);
    if (entry !== undefined && expiry(entry) > now) {
      if (entry instanceof MemoryLease) {
        if (owner === undefined || entry.owner !== owner) return 'in-flight';
      } else {
        this.#set(eventId, entry, now); // a redelivered event is a recently used one
        return 'done';
      }
    }
    const lease = new MemoryLease(now + leaseMs, owner);
    this.#set(eventId, lease, now);
    return { status: 'claimed', lease };
  }

  async complete(eventId: string, lease?: unknown): Promise<void> {
    checkEventId(eventId);
    const own = checkLease(lease);
    const now = this.#clock();
    const entry = this.#entries.get(eventId);
    if (own !== undefined && entry instanceof MemoryLease && entry !== own && entry.until > now) {
      throw new LeaseLostError(eventId);
    }
    this.#set(eventId, -(now + this.#ttlMs), now);
  }

  async release(eventId: string, lease?: unknown): Promise<void> {
    checkEventId(eventId);
    const own = checkLease(lease);
    const entry = this.#entries.get(eventId);
    if (entry instanceof MemoryLease && (own === undefined || entry === own)) this.#delete(eventId);
  }

  async renew(eventId: string, lease: unknown, leaseMs: number): Promise<boolean> {
    checkEventId(eventId);
    const own = checkLease(lease);
    checkLeaseMs(leaseMs);
    if (own === undefined || this.#entries.get(eventId) !== own) return false;
    renewLease(own, this.#clock() + leaseMs);
    return true;
  }

  async leaseLeftMs(eventId: string): Promise<number> {
    checkEventId(eventId);
    const entry = this.#entries.get(eventId);
    return entry instanceof MemoryLease ? Math.max(0, entry.until - this.#clock()) : 0;
  }

  #set(eventId: string, value: Entry, now: number): void {
    const entries = this.#entries;
    this.#delete(eventId); // re-inserting moves it to the end: the most recently used
    entries.set(eventId, value);
    for (let swept = 0; swept < SWEEP_PER_WRITE; swept += 1) {
      const oldest = this.#oldest();
      if (oldest === undefined || expiry(entries.get(oldest) as Entry) > now) break;
      this.#delete(oldest);
    }
    while (entries.size > this.#maxEntries) {
      const oldest = this.#oldest();
      if (oldest === undefined || !this.#delete(oldest)) break; // never loop on a key already gone
    }
    if (++this.#idleWrites > entries.size / 2) this.#cursor = undefined;
  }

  #oldest(): string | undefined {
    if (this.#head !== undefined) return this.#head;
    this.#cursor ??= this.#entries.keys();
    const next = this.#cursor.next();
    this.#idleWrites = 0;
    if (next.done === true) {
      this.#cursor = undefined; // a finished iterator stays finished
      return undefined;
    }
    this.#head = next.value;
    return next.value;
  }

  /** Every deletion goes through here, so `#head` never names a deleted key. */
  #delete(eventId: string): boolean {
    if (eventId === this.#head) this.#head = undefined;
    return this.#entries.delete(eventId);
  }
}
