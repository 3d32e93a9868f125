import { kindEntry, type RecordOf, type StatusKind } from '../kinds.js';
import type { StatusStore } from '../stores/status-store.js';
import { bounded } from './bounded.js';
import { monotonic } from './turn-handle.js';

/** How often a tracker asks its store when the last event came, at most (per process, not per read). */
export const EVENT_CHECK_MS = 5_000;

/**
 * Whether provider events reach the tracker's store ("webhooks first": while they do, an announced
 * change is read at the safety pace), and the count of announced changes a poll read found first.
 * The store is asked at most every {@link EVENT_CHECK_MS} (one call shared by every turn meanwhile),
 * so a read costs no extra round trip; between two asks the age grows on this process's clock.
 */
export class EventFlow {
  readonly #store: StatusStore;
  readonly #silenceMs: number;
  readonly #timeoutMs: number;
  /** The store's last answer: the last event's age then (`undefined`: none yet), and when it came (monotonic). */
  #stored: { ageMs: number | undefined; askedAt: number } | undefined;
  /** No store ask before this (monotonic), answered or failed. */
  #nextAskAt = -Infinity;
  #asking: Promise<void> | undefined;
  /** The last event nudged through this tracker: monotonic, and epoch milliseconds for `health()`. */
  #local: { at: number; epochMs: number } | undefined;
  #foundFirstByRead = 0;
  /** With `webhooksFromStart`, the tracker's creation (monotonic): events count as flowing from it. */
  readonly #start: number | undefined;

  constructor(store: StatusStore, silenceMs: number, timeoutMs: number, fromStart: boolean) {
    this.#store = store;
    this.#silenceMs = silenceMs;
    this.#timeoutMs = timeoutMs;
    this.#start = fromStart ? monotonic() : undefined;
  }

  /** Announced changes a poll read found before their event, since the tracker was created. */
  get foundFirstByRead(): number {
    return this.#foundFirstByRead;
  }

  /** A poll read found a change a provider event announces. */
  foundFirst(): void {
    this.#foundFirstByRead += 1;
  }

  /** An event was nudged through this tracker (known at once, before the store is asked again). */
  noted(): void {
    this.#local = { at: monotonic(), epochMs: Date.now() };
  }

  /**
   * Whether the record's next change is one a provider event announces (its kind's `announced`)
   * and events flow: the last one, the store's or this tracker's, came less than `webhookSilenceMs`
   * ago. Without events, an announced change is read as an unannounced one.
   */
  async announced(kind: StatusKind, record: RecordOf<StatusKind>): Promise<boolean> {
    if (!kindEntry(kind).announced(record)) return false;
    return (await this.#ageMs()) < this.#silenceMs;
  }

  /** When the last event reached the store (or this tracker, for a store that does not say), for `health()`. */
  /** The last event nudged through this tracker (this process's epoch milliseconds), without asking the store. */
  localLastEventAt(): number | undefined {
    return this.#local?.epochMs;
  }

  async lastEventAt(): Promise<number | undefined> {
    const store = this.#store;
    if (typeof store.lastEvent !== 'function') return this.#local?.epochMs;
    const askedAt = monotonic();
    const last = await bounded(this.#timeoutMs, 'lastEvent', store.lastEvent());
    this.#stored = { ageMs: last?.ageMs, askedAt };
    return last?.at ?? this.#local?.epochMs;
  }

  /** How long ago the last event came, as far as this process knows (`Infinity`: never). */
  async #ageMs(): Promise<number> {
    if (typeof this.#store.lastEvent === 'function' && monotonic() >= this.#nextAskAt) {
      this.#asking ??= this.#ask().finally(() => (this.#asking = undefined));
      await this.#asking;
    }
    const now = monotonic();
    const stored = this.#stored?.ageMs === undefined ? Infinity : this.#stored.ageMs + (now - this.#stored.askedAt);
    const local = this.#local === undefined ? Infinity : now - this.#local.at;
    return Math.min(stored, local, this.#start === undefined ? Infinity : now - this.#start);
  }

  /** Asks the store; a store that fails keeps the last answer, asked again after {@link EVENT_CHECK_MS}. */
  async #ask(): Promise<void> {
    const askedAt = monotonic();
    this.#nextAskAt = askedAt + EVENT_CHECK_MS;
    try {
      const last = await bounded(this.#timeoutMs, 'lastEvent', this.#store.lastEvent!());
      this.#stored = { ageMs: last?.ageMs, askedAt };
    } catch {
      // the last answer stands (its age grows meanwhile); no answer yet reads as no event
    }
  }
}
