import { checkOptions } from '../internal/arguments.js';
import { typeName } from '../internal/type-name.js';
import type { WebhookEvent } from '../webhook-event.js';
import { checkExternalId, checkFoundKey, checkKind, checkOwner, wholeNumber } from './arguments.js';
import { DueHeap } from './due-heap.js';
import { StatusStoreFullError } from './errors.js';
import { NUDGE_PRIORITY_MS } from './status-store.js';
import type {
  OverdueRecords,
  ClaimDueRequest,
  ClaimedStatusRecord,
  LastEvent,
  StatusKind,
  StatusLease,
  StatusRecordState,
  StatusStore,
  StatusTurn,
} from './status-store.js';

/** Options of {@link MemoryStatusStore}. @inline */
export interface MemoryStatusStoreOptions {
  /** The most records kept; ended watches go first, and with none a new watch rejects (`StatusStoreFullError`). @default 100_000 */
  maxRecords?: number | undefined;
  /** How long an ended watch's handled status is kept, in milliseconds, for replayed events. @default 2_592_000_000 (30 days) */
  retentionMs?: number | undefined;
  /** The store's clock in epoch milliseconds; it must never go back. @default `performance.timeOrigin + performance.now()` */
  clock?: (() => number) | undefined;
}

interface Entry extends StatusRecordState {
  dueAt: number | undefined;
  lease: { token: string; owner: string; until: number; nudges: number } | undefined;
  /** A turn whose claim saw fewer nudges was overtaken by one. */
  nudges: number;
  endedAt: number | undefined;
  /** When a successful read is owed (a failed turn leaves it): `overdue()` counts from it. */
  owedAt: number;
  foundKey: string | undefined;
}

const DEFAULT_MAX_RECORDS = 100_000;
const DEFAULT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

// monotonic, yet epoch milliseconds: timeOrigin is fixed at process start
const monotonicNow = (): number => performance.timeOrigin + performance.now();

const MEMORY_STATUS_STORE_OPTIONS = ['maxRecords', 'retentionMs', 'clock'] as const satisfies readonly (keyof MemoryStatusStoreOptions)[];

/** A {@link StatusStore} in this process's memory, for one process and tests: a restart hands each current status over again. */
export class MemoryStatusStore implements StatusStore {
  /** The bound on records kept. */
  readonly maxRecords: number;
  /** Milliseconds an ended watch's status is kept. */
  readonly retentionMs: number;
  readonly #records = new Map<string, Entry>();
  readonly #due = new DueHeap();
  /** Ended watches in the order they ended: the eviction and retention order. */
  readonly #ended = new Map<string, number>();
  readonly #leasesByOwner = new Map<string, Set<string>>();
  readonly #byFoundKey = new Map<string, Set<string>>();
  readonly #clock: () => number;
  #tokens = 0;
  #lastEventAt: number | undefined;

  constructor(options: MemoryStatusStoreOptions = {}) {
    checkOptions('MemoryStatusStore', options, MEMORY_STATUS_STORE_OPTIONS);
    this.maxRecords = wholeNumber('maxRecords', options.maxRecords, DEFAULT_MAX_RECORDS);
    this.retentionMs = wholeNumber('retentionMs', options.retentionMs, DEFAULT_RETENTION_MS);
    if (options.clock !== undefined && typeof options.clock !== 'function') {
      throw new TypeError(`MemoryStatusStore clock must be a function returning milliseconds, got ${typeName(options.clock)}`);
    }
    this.#clock = options.clock ?? monotonicNow;
  }

  /** Records kept, watched and retained. */
  get size(): number {
    return this.#records.size;
  }

  async watch(kind: StatusKind, externalId: string): Promise<void> {
    const now = this.#clock();
    const entry = this.#entry(kind, externalId, now);
    if (entry.watching) return;
    this.#startWatch(entry, now);
  }

  async unwatch(kind: StatusKind, externalId: string): Promise<void> {
    checkKind(kind);
    checkExternalId(externalId);
    const key = keyOf(kind, externalId);
    const entry = this.#records.get(key);
    if (!entry?.watching) return;
    this.#end(key, entry, this.#clock());
  }

  async nudge(kind: StatusKind, externalId: string, nudge: { event?: WebhookEvent | undefined } = {}): Promise<void> {
    if (nudge === null || typeof nudge !== 'object') throw new TypeError(`nudge must be an object, got ${typeName(nudge)}`);
    const { event } = nudge;
    const now = this.#clock();
    const entry = this.#entry(kind, externalId, now);
    entry.nudgedAt = now;
    entry.owedAt = Math.min(entry.owedAt, now);
    if (event !== undefined) {
      entry.event = structuredClone(event);
      this.#lastEventAt = now;
    }
    entry.nudges += 1;
    if (!entry.watching) this.#startWatch(entry, now, now - NUDGE_PRIORITY_MS);
    else if (!this.#leaseLive(entry, now) && entry.failures === 0) this.#schedule(entry, now - NUDGE_PRIORITY_MS);
  }

  async claimDue(request: ClaimDueRequest): Promise<ClaimedStatusRecord[]> {
    const { limit, leaseMs, owner } = request;
    const now = this.#clock();
    this.#expire(now);
    const claimed: ClaimedStatusRecord[] = [];
    while (claimed.length < limit) {
      const key = this.#due.popDue(now);
      if (key === undefined) break;
      const entry = this.#records.get(key);
      if (!entry?.watching) continue;
      this.#tokens += 1;
      const token = `${owner}:${this.#tokens}`;
      const dueAt = entry.dueAt;
      this.#dropLease(key, entry);
      entry.lease = { token, owner, until: now + leaseMs, nudges: entry.nudges };
      let keys = this.#leasesByOwner.get(owner);
      if (keys === undefined) this.#leasesByOwner.set(owner, (keys = new Set()));
      keys.add(key);
      this.#schedule(entry, now + leaseMs);
      claimed.push({
        ...snapshot(entry),
        lease: { kind: entry.kind, externalId: entry.externalId, owner, token },
        claimedAt: now,
        ...(dueAt === undefined ? {} : { dueAt }),
      });
    }
    return claimed;
  }

  async extend(lease: StatusLease, extension: { leaseMs: number }): Promise<boolean> {
    const entry = this.#held(lease);
    if (entry === undefined) return false;
    entry.lease!.until = this.#clock() + extension.leaseMs;
    if (entry.watching) this.#schedule(entry, entry.lease!.until);
    return true;
  }

  async commit(lease: StatusLease, status: string | null, turn: StatusTurn): Promise<boolean> {
    const entry = this.#held(lease);
    if (entry === undefined) return false;
    const now = this.#clock();
    entry.handled = { status, at: Math.max(now, (entry.handled?.at ?? -Infinity) + 1) };
    if (entry.nudges === entry.lease!.nudges && turn.keepNudge !== true) {
      entry.nudgedAt = undefined;
      entry.event = undefined;
    }
    this.#endTurn(entry, turn, now);
    return true;
  }

  async reschedule(lease: StatusLease, turn: StatusTurn): Promise<boolean> {
    const entry = this.#held(lease);
    if (entry === undefined) return false;
    this.#endTurn(entry, turn, this.#clock());
    return true;
  }

  async release(lease: StatusLease): Promise<void> {
    const entry = this.#held(lease);
    if (entry === undefined) return;
    this.#dropLease(keyOf(entry.kind, entry.externalId), entry);
    if (entry.watching) this.#schedule(entry, this.#clock());
  }

  async reclaim(owner: string): Promise<number> {
    checkOwner(owner);
    const keys = this.#leasesByOwner.get(owner);
    if (keys === undefined) return 0;
    const now = this.#clock();
    let ended = 0;
    for (const key of keys) {
      const entry = this.#records.get(key);
      if (entry === undefined || entry.lease?.owner !== owner) continue;
      if (this.#leaseLive(entry, now)) ended += 1;
      entry.lease = undefined;
      if (entry.watching) this.#schedule(entry, now);
    }
    this.#leasesByOwner.delete(owner);
    return ended;
  }

  async countWatched(): Promise<number> {
    return this.#records.size - this.#ended.size;
  }

  async overdue(): Promise<OverdueRecords> {
    const now = this.#clock();
    let count = 0;
    let oldest = now;
    for (const entry of this.#records.values()) {
      if (!entry.watching || entry.owedAt >= now) continue;
      count += 1;
      oldest = Math.min(oldest, entry.owedAt);
    }
    return { count, oldestMs: now - oldest };
  }

  async lastEvent(): Promise<LastEvent | undefined> {
    const at = this.#lastEventAt;
    return at === undefined ? undefined : { at, ageMs: Math.max(0, this.#clock() - at) };
  }

  async get(kind: StatusKind, externalId: string): Promise<StatusRecordState | undefined> {
    checkKind(kind);
    checkExternalId(externalId);
    const entry = this.#records.get(keyOf(kind, externalId));
    return entry === undefined ? undefined : snapshot(entry);
  }

  async rememberKey(kind: StatusKind, externalId: string, key: string): Promise<void> {
    checkKind(kind);
    checkExternalId(externalId);
    checkFoundKey(key);
    const recordKey = keyOf(kind, externalId);
    const entry = this.#records.get(recordKey);
    if (entry === undefined || entry.foundKey === key) return;
    this.#unindexKey(recordKey, entry);
    entry.foundKey = key;
    const index = keyOf(kind, key);
    const keys = this.#byFoundKey.get(index) ?? new Set<string>();
    keys.add(recordKey);
    this.#byFoundKey.set(index, keys);
  }

  async findByKey(kind: StatusKind, key: string): Promise<string | undefined> {
    checkKind(kind);
    checkFoundKey(key);
    let found: Entry | undefined;
    for (const recordKey of this.#byFoundKey.get(keyOf(kind, key)) ?? []) {
      const entry = this.#records.get(recordKey);
      if (entry !== undefined && (found === undefined || (entry.watching && !found.watching))) found = entry;
    }
    return found?.externalId;
  }

  #unindexKey(recordKey: string, entry: Entry): void {
    if (entry.foundKey === undefined) return;
    const index = keyOf(entry.kind, entry.foundKey);
    const keys = this.#byFoundKey.get(index);
    keys?.delete(recordKey);
    if (keys?.size === 0) this.#byFoundKey.delete(index);
  }

  #endTurn(entry: Entry, turn: StatusTurn, now: number): void {
    const nudged = entry.nudges !== entry.lease!.nudges;
    const key = keyOf(entry.kind, entry.externalId);
    this.#dropLease(key, entry);
    entry.failures = turn.failures;
    if (!entry.watching) return; // unwatched during the turn
    // a failed or missed turn still owes this read
    if (turn.failures === 0 && turn.missed !== true) entry.owedAt = nudged ? now : 'delayMs' in turn.next ? now + turn.next.delayMs : now;
    if (nudged && turn.failures === 0) this.#schedule(entry, now - NUDGE_PRIORITY_MS);
    else if ('delayMs' in turn.next) this.#schedule(entry, now + turn.next.delayMs);
    else this.#end(key, entry, now);
  }

  #dropLease(key: string, entry: Entry): void {
    if (entry.lease === undefined) return;
    const keys = this.#leasesByOwner.get(entry.lease.owner);
    keys?.delete(key);
    if (keys?.size === 0) this.#leasesByOwner.delete(entry.lease.owner);
    entry.lease = undefined;
  }

  #startWatch(entry: Entry, now: number, dueAt = now): void {
    const key = keyOf(entry.kind, entry.externalId);
    this.#ended.delete(key);
    entry.endedAt = undefined;
    entry.watching = true;
    entry.watchedAt = now;
    entry.owedAt = now;
    this.#schedule(entry, this.#leaseLive(entry, now) ? entry.lease!.until : dueAt);
  }

  #end(key: string, entry: Entry, now: number): void {
    entry.watching = false;
    entry.nudgedAt = undefined;
    entry.event = undefined;
    entry.dueAt = undefined;
    entry.endedAt = now;
    this.#due.delete(key);
    this.#ended.delete(key);
    this.#ended.set(key, now);
  }

  #schedule(entry: Entry, at: number): void {
    entry.dueAt = at;
    this.#due.set(keyOf(entry.kind, entry.externalId), at);
  }

  #leaseLive(entry: Entry, now: number): boolean {
    return entry.lease !== undefined && entry.lease.until > now;
  }

  #held(lease: StatusLease): Entry | undefined {
    if (lease === null || typeof lease !== 'object')
      throw new TypeError(`lease must be the lease claimDue returned, got ${typeName(lease)}`);
    const entry = this.#records.get(keyOf(lease.kind, lease.externalId));
    return entry?.lease?.token === lease.token ? entry : undefined;
  }

  #entry(kind: StatusKind, externalId: string, now: number): Entry {
    checkKind(kind);
    checkExternalId(externalId);
    const key = keyOf(kind, externalId);
    const found = this.#records.get(key);
    if (found !== undefined) return found;
    this.#expire(now);
    if (this.#records.size >= this.maxRecords) {
      const oldest = this.#ended.keys().next();
      if (oldest.done === true) throw new StatusStoreFullError(this.maxRecords);
      this.#forget(oldest.value);
    }
    const entry: Entry = {
      kind,
      externalId,
      watching: false,
      watchedAt: now,
      failures: 0,
      dueAt: undefined,
      lease: undefined,
      nudges: 0,
      endedAt: undefined,
      owedAt: now,
      foundKey: undefined,
    };
    this.#records.set(key, entry);
    return entry;
  }

  /** Drops the ended watches past `retentionMs`, which sit at the front of `#ended`. */
  #expire(now: number): void {
    for (const [key, endedAt] of this.#ended) {
      if (endedAt + this.retentionMs > now) break;
      this.#forget(key);
    }
  }

  #forget(key: string): void {
    const entry = this.#records.get(key);
    if (entry !== undefined) {
      this.#dropLease(key, entry);
      this.#unindexKey(key, entry);
    }
    this.#ended.delete(key);
    this.#records.delete(key);
  }
}

function keyOf(kind: StatusKind, externalId: string): string {
  return `${kind}:${externalId}`;
}

function snapshot(entry: Entry): StatusRecordState {
  const state: StatusRecordState = {
    kind: entry.kind,
    externalId: entry.externalId,
    watching: entry.watching,
    watchedAt: entry.watchedAt,
    failures: entry.failures,
  };
  if (entry.handled !== undefined) state.handled = { ...entry.handled };
  if (entry.nudgedAt !== undefined) state.nudgedAt = entry.nudgedAt;
  if (entry.event !== undefined) state.event = structuredClone(entry.event);
  return state;
}
