import { eventKey } from '../event-types.js';
import { kindEntry, type RecordOf, type StatusKind } from '../kinds.js';
import type { WebhookEvent } from '../webhooks/event.js';
import { StatusStoreTimeoutError } from './errors.js';
import type { StatusStore } from './types.js';

/** The records whose key this process last wrote, so a read that shows the same key again writes nothing. */
const MEMO_LIMIT = 10_000;

/**
 * The keys reads reveal (an order's `settlement.tradeId`, from the kinds table), recorded in the
 * store so that any process's webhook handler finds the record from an event that carries only
 * that value (`otc.trade.*`'s `tradeId`). Needs a store with `rememberKey` and `findByKey`.
 */
export class FoundKeys {
  readonly #store: StatusStore;
  readonly #timeoutMs: number;
  /** record → the key last written for it, oldest first (bounded: a forgotten one is written again). */
  readonly #written = new Map<string, string>();

  constructor(store: StatusStore, timeoutMs: number) {
    this.#store = store;
    this.#timeoutMs = timeoutMs;
  }

  /** Records the keys `record` shows that were not written yet; rejects when the store fails. */
  async remember(kind: StatusKind, externalId: string, record: RecordOf<StatusKind>): Promise<void> {
    const rememberKey = this.#store.rememberKey?.bind(this.#store);
    if (rememberKey === undefined) return;
    for (const [name, keyOf] of Object.entries(kindEntry(kind).keys)) {
      const value = keyOf(record);
      if (value === undefined || value === '') continue;
      const key = `${name}:${value}`;
      const memo = `${kind}\u0000${name}\u0000${externalId}`;
      if (this.#written.get(memo) === key) continue;
      await this.#bounded('rememberKey', rememberKey(kind, externalId, key));
      this.#written.delete(memo);
      this.#written.set(memo, key);
      if (this.#written.size > MEMO_LIMIT) this.#written.delete(this.#written.keys().next().value!);
    }
  }

  /** The record whose read revealed the key `event` carries (`otc.trade.*`: the order of its `tradeId`), if any read did. */
  async recordFor(event: WebhookEvent): Promise<{ kind: StatusKind; externalId: string } | undefined> {
    const found = eventKey(event);
    const findByKey = this.#store.findByKey?.bind(this.#store);
    if (found === undefined || findByKey === undefined) return undefined;
    const externalId = await this.#bounded('findByKey', findByKey(found.kind, `${found.key}:${found.value}`));
    return typeof externalId === 'string' && externalId !== '' ? { kind: found.kind, externalId } : undefined;
  }

  /** `work`, or a StatusStoreTimeoutError once the store time limit passes (as every store call of the tracker). */
  #bounded<T>(operation: string, work: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StatusStoreTimeoutError(operation, this.#timeoutMs)), this.#timeoutMs);
    });
    return Promise.race([work, limit]).finally(() => clearTimeout(timer));
  }
}
