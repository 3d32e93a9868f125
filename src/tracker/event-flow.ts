import { kindEntry, type RecordOf, type StatusKind } from '../kinds.js';
import type { StatusStore } from '../stores/status-store.js';
import { bounded } from './bounded.js';
import { monotonic } from './turn-handle.js';

export const EVENT_CHECK_MS = 5_000;

/**
 * Whether provider events reach the store (announced changes are then read at the safety pace). The
 * store is asked at most every {@link EVENT_CHECK_MS}, one call shared by every turn meanwhile.
 */
export class EventFlow {
  readonly #store: StatusStore;
  readonly #silenceMs: number;
  readonly #timeoutMs: number;
  #stored: { ageMs: number | undefined; askedAt: number } | undefined;
  #nextAskAt = -Infinity;
  #asking: Promise<void> | undefined;
  #local: { at: number; epochMs: number } | undefined;
  #foundFirstByRead = 0;
  readonly #start: number | undefined;

  constructor(store: StatusStore, silenceMs: number, timeoutMs: number, fromStart: boolean) {
    this.#store = store;
    this.#silenceMs = silenceMs;
    this.#timeoutMs = timeoutMs;
    this.#start = fromStart ? monotonic() : undefined;
  }

  get foundFirstByRead(): number {
    return this.#foundFirstByRead;
  }

  foundFirst(): void {
    this.#foundFirstByRead += 1;
  }

  noted(): void {
    this.#local = { at: monotonic(), epochMs: Date.now() };
  }

  /** Whether the record's next change is one an event announces, and the last event came within `webhookSilenceMs`. */
  async announced(kind: StatusKind, record: RecordOf<StatusKind>): Promise<boolean> {
    if (!kindEntry(kind).announced(record)) return false;
    return (await this.#ageMs()) < this.#silenceMs;
  }

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
