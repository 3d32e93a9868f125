import { typeName } from '../internal/type-name.js';
import { checkEventId, checkOptions, positiveMs } from '../internal/arguments.js';
import { LeaseLostError } from './errors.js';
import type { ClaimedLease, ClaimOptions, EventStore } from './event-store.js';
import { claimOwner } from './claim-owner.js';
import { quote } from '../internal/quote.js';

/**
 * Options of {@link MemoryEventStore}.
 *
 * @inline
 */
export interface MemoryEventStoreOptions {
  /**
   * How many events it remembers. Past this the least recently used entry is dropped, so memory
   * stays bounded (an entry is about 90 bytes plus its eventId).
   * @default 100_000
   */
  maxEntries?: number | undefined;
  /**
   * How long a completed event is remembered, in milliseconds: a redelivery within this time is
   * answered "done". Set it longer than the provider's retry window.
   * @default 86_400_000 (24 hours)
   */
  ttlMs?: number | undefined;
  /**
   * The store's clock, in milliseconds: leases and the TTL of done events run on it. It must never
   * go back; tests may pass a manual clock.
   * @default a monotonic clock (`performance.now()`), which a wall-clock step never moves
   */
  clock?: (() => number) | undefined;
}

// monotonic: a wall-clock step (NTP) must neither end a live lease early nor keep an expired one
const monotonicNow = (): number => performance.now();

/** How many of the oldest entries each write looks at to drop the expired ones. */
const SWEEP_PER_WRITE = 2;

/** Moves a lease's end to `until` (set in MemoryLease's static block). */
let renewLease: (lease: MemoryLease, until: number) => void;

/**
 * An in-flight claim: the entry's value while in flight, and the `lease` handed to the claimer.
 * Compared by identity, so only the claim that made it can complete, release or renew through it.
 */
class MemoryLease {
  #until: number;
  constructor(
    until: number,
    /** The claim's owner (`claim`'s `{ owner }`), if it was given one. */
    readonly owner: string | undefined,
  ) {
    this.#until = until;
    Object.freeze(this);
  }

  /** When it lets go, on the store's clock (moved on by {@link MemoryEventStore.renew}). */
  get until(): number {
    return this.#until;
  }

  static {
    // only this module moves a lease's end: the lease object the claimer holds cannot
    renewLease = (lease, until) => {
      lease.#until = until;
    };
  }
}

/** An entry's value: a {@link MemoryLease} while in flight, `-t` once done (remembered until t). */
type Entry = MemoryLease | number;

/** When an entry stops counting, on the store's clock. */
function expiry(entry: Entry): number {
  return typeof entry === 'number' ? -entry : entry.until;
}

/** The lease a claim of this store returned, `undefined` for none, else a `TypeError`. */
function checkLease(lease: unknown): MemoryLease | undefined {
  if (lease === undefined || lease instanceof MemoryLease) return lease;
  throw new TypeError(`lease must be the lease this store's claim returned, got ${typeName(lease)}`);
}

/** `leaseMs` of `claim` and `renew`: a positive, finite number of milliseconds, else a `TypeError`. */
function checkLeaseMs(leaseMs: unknown): asserts leaseMs is number {
  if (typeof leaseMs !== 'number' || !(leaseMs > 0) || !Number.isFinite(leaseMs)) {
    throw new TypeError(`leaseMs must be a positive number of milliseconds, got ${quote(leaseMs)}`);
  }
}

/** Every option of MemoryEventStore: any other is refused. */
const MEMORY_EVENT_STORE_OPTIONS = ['maxEntries', 'ttlMs', 'clock'] as const satisfies readonly (keyof MemoryEventStoreOptions)[];

/**
 * An {@link EventStore} in this process's memory: right for one process (and for tests). Several
 * processes or machines need a shared store such as `RedisEventStore` from
 * `checkout-partner-sdk/redis`.
 *
 * Bounded by `maxEntries` (least recently used first out) and `ttlMs`; an in-flight claim whose
 * lease has passed can be claimed again. A claim answers `{ status: 'claimed', lease }`; given that
 * `lease` back, `complete` and `release` act only for the claim that made it, so a worker whose
 * lease ran out cannot settle the next worker's claim (`complete` then rejects with
 * {@link LeaseLostError}, `release` does nothing); `renew` extends it, and a claim made under the
 * same `owner` takes it back. Without a lease, `complete` and `release`
 * settle whatever claim holds the event. Each done entry is one `Map` slot: the eventId and one
 * number, its negated expiry time; an in-flight one holds its small lease object instead.
 *
 * @example
 * const store = new MemoryEventStore({ maxEntries: 10_000, ttlMs: 6 * 60 * 60 * 1000 });
 * const handler = createWebhookHandler({ secret, client, onEvent, store });
 */
export class MemoryEventStore implements EventStore {
  /** eventId → its lease while in flight (until `lease.until`), `-t` once done (until t). Insertion order is LRU order. */
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #clock: () => number;
  /**
   * One long-lived iterator over the keys, used as a cursor to reach the oldest entry. A fresh
   * `keys()` iterator starts at the front of V8's table and steps over every deleted slot not yet
   * compacted away (tens of thousands once the store is full), so each write would grow slow.
   * This one only moves forward: every key it has passed is deleted, except `#head`. An iterator
   * still sees entries added after it was made, so a touched entry (deleted, then set again at the
   * end) is met again at its new place. `undefined` when it has run out (then the map is empty)
   * or was let go while idle (see `#idleWrites`); a new one from the front is then just as right.
   */
  #cursor: IterableIterator<string> | undefined;
  /** The key the cursor last gave and that is still stored: the oldest entry. */
  #head: string | undefined;
  /**
   * Writes since the cursor last stepped. An iterator pins every table V8 has replaced since its
   * last step (as the store grows or compacts) until it steps again, which an idle one (oldest
   * entry not yet expired, store not full) may not do for `ttlMs`. V8 rehashes at most once per
   * `size / 2` inserts or so, so the cursor is let go after that many idle writes: about one old
   * table is kept at most, and a new iterator's walk over deleted slots is paid once per as many writes.
   */
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

  /** How many events it holds now (expired ones included until they are swept or evicted). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Claims `eventId` for `leaseMs` milliseconds: `{ status: "claimed", lease }`, `"in-flight"` while
   * another live claim holds it, `"done"` once completed. A live claim made under the same
   * `options.owner` is taken back (claimed again with a new lease).
   */
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

  /**
   * Marks `eventId` done for `ttlMs` while the claim that returned `lease` still holds the event,
   * or nobody claimed it since its lease ran out (the work was done all the same); resolves when it
   * is done already. Without a lease (`undefined`) it marks `eventId` done whoever holds it.
   *
   * @throws {LeaseLostError} when `lease` ran out and another claim now holds the event (left alone).
   * @throws {TypeError} when `lease` is neither `undefined` nor one this store's claim returned.
   */
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

  /**
   * Gives up the claim that returned `lease`, so a redelivery can claim `eventId` at once; another
   * claim, or a done event, is left alone. Without a lease (`undefined`) it frees whatever claim
   * holds `eventId`; a done event stays done.
   *
   * @throws {TypeError} when `lease` is neither `undefined` nor one this store's claim returned.
   */
  async release(eventId: string, lease?: unknown): Promise<void> {
    checkEventId(eventId);
    const own = checkLease(lease);
    const entry = this.#entries.get(eventId);
    if (entry instanceof MemoryLease && (own === undefined || entry === own)) this.#delete(eventId);
  }

  /**
   * Extends the claim that returned `lease` to `leaseMs` from now: `true` while it still holds
   * `eventId` (or nobody claimed it since its lease ran out), `false` otherwise.
   *
   * @throws {TypeError} when `lease` is not one this store's claim returned.
   */
  async renew(eventId: string, lease: unknown, leaseMs: number): Promise<boolean> {
    checkEventId(eventId);
    const own = checkLease(lease);
    checkLeaseMs(leaseMs);
    if (own === undefined || this.#entries.get(eventId) !== own) return false;
    renewLease(own, this.#clock() + leaseMs);
    return true;
  }

  /** Milliseconds left on the live claim that holds `eventId`, `0` when none does. */
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

  /** The least recently used key (the front of the map), or `undefined` when the map is empty. */
  #oldest(): string | undefined {
    if (this.#head !== undefined) return this.#head;
    this.#cursor ??= this.#entries.keys();
    const next = this.#cursor.next();
    this.#idleWrites = 0;
    if (next.done === true) {
      this.#cursor = undefined; // a finished iterator stays finished; make a new one when needed
      return undefined;
    }
    this.#head = next.value;
    return next.value;
  }

  /** Every deletion goes through here: once the head is gone, the cursor gives the next oldest. */
  #delete(eventId: string): boolean {
    if (eventId === this.#head) this.#head = undefined;
    return this.#entries.delete(eventId);
  }
}
