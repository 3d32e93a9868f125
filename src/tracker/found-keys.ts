import { eventKey } from '../event-types.js';
import { kindEntry, type RecordOf, type StatusKind } from '../kinds.js';
import type { WebhookEvent } from '../webhooks/event.js';
import { bounded } from './bounded.js';
import type { StatusStore } from './types.js';

const MEMO_LIMIT = 10_000;

/** Keys reads reveal (the kinds table's `keys`), kept in the store so any process's webhook handler finds a record by one. */
export class FoundKeys {
  readonly #store: StatusStore;
  readonly #timeoutMs: number;
  /** The key last written per record, so a read showing it again writes nothing (bounded: a forgotten one is written again). */
  readonly #written = new Map<string, string>();

  constructor(store: StatusStore, timeoutMs: number) {
    this.#store = store;
    this.#timeoutMs = timeoutMs;
  }

  async remember(kind: StatusKind, externalId: string, record: RecordOf<StatusKind>): Promise<void> {
    const rememberKey = this.#store.rememberKey?.bind(this.#store);
    if (rememberKey === undefined) return;
    for (const [name, keyOf] of Object.entries(kindEntry(kind).keys)) {
      const value = keyOf(record);
      if (value === undefined || value === '') continue;
      const key = `${name}:${value}`;
      const memo = `${kind}\u0000${name}\u0000${externalId}`;
      if (this.#written.get(memo) === key) continue;
      await bounded(this.#timeoutMs, 'rememberKey', rememberKey(kind, externalId, key));
      this.#written.delete(memo);
      this.#written.set(memo, key);
      if (this.#written.size > MEMO_LIMIT) this.#written.delete(this.#written.keys().next().value!);
    }
  }

  async recordFor(event: WebhookEvent): Promise<{ kind: StatusKind; externalId: string } | undefined> {
    const found = eventKey(event);
    const findByKey = this.#store.findByKey?.bind(this.#store);
    if (found === undefined || findByKey === undefined) return undefined;
    const externalId = await bounded(this.#timeoutMs, 'findByKey', findByKey(found.kind, `${found.key}:${found.value}`));
    return typeof externalId === 'string' && externalId !== '' ? { kind: found.kind, externalId } : undefined;
  }
}
