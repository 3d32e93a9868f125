import { typeName } from '../internal/type-name.js';
import type { ParseSchema } from '../schemas.js';
import { quote } from '../internal/quote.js';

/** When a change made by the test shows in the status GET. */
export interface ChangeOptions {
  /** How many more status reads still see the record's current state (`0`: the change applies at once). @default 0 */
  afterReads?: number | undefined;
}

interface PendingChange<T> {
  remaining: number;
  apply: (record: T) => T;
}

/** Records of one kind, validated by the client's own schema, so the fake serves only what the client accepts. */
export class RecordTable<T extends { externalId: string }> {
  readonly #kind: string;
  readonly #schema: ParseSchema<T>;
  readonly #records = new Map<string, T>();
  readonly #pending = new Map<string, PendingChange<T>[]>();

  constructor(kind: string, schema: ParseSchema<T>) {
    this.#kind = kind;
    this.#schema = schema;
  }

  set(value: unknown, caller: string): T {
    const record = this.#check(value, caller);
    this.#records.set(record.externalId, record);
    this.#pending.delete(record.externalId);
    return structuredClone(record);
  }

  change(externalId: unknown, patch: (record: T) => Record<string, unknown>, options: ChangeOptions | undefined, caller: string): void {
    const id = this.#existing(externalId, caller);
    const afterReads = checkAfterReads(options, caller);
    const apply = (record: T): T => {
      const merged = { ...record, ...patch(record), externalId: record.externalId };
      return this.#check(Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)), caller);
    };
    if (afterReads === 0) {
      this.#records.set(id, apply(this.#records.get(id) as T));
      return;
    }
    // validate now, so a bad patch fails in the test that wrote it, not in a later read
    apply(this.#records.get(id) as T);
    const queue = this.#pending.get(id) ?? [];
    queue.push({ remaining: afterReads, apply });
    this.#pending.set(id, queue);
  }

  peek(externalId: string): T | undefined {
    const record = this.#records.get(externalId);
    return record === undefined ? undefined : structuredClone(record);
  }

  /** What a status GET sees: due changes applied, the read counted. */
  read(externalId: string): T | undefined {
    let record = this.#records.get(externalId);
    if (record === undefined) return undefined;
    const queue = this.#pending.get(externalId) ?? [];
    while (queue[0] !== undefined && queue[0].remaining <= 0) {
      record = queue.shift()!.apply(record);
      this.#records.set(externalId, record);
    }
    for (const change of queue) change.remaining -= 1;
    if (queue.length === 0) this.#pending.delete(externalId);
    return structuredClone(record);
  }

  delete(externalId: string): boolean {
    this.#pending.delete(externalId);
    return this.#records.delete(externalId);
  }

  clear(): void {
    this.#records.clear();
    this.#pending.clear();
  }

  get size(): number {
    return this.#records.size;
  }

  #existing(externalId: unknown, caller: string): string {
    if (typeof externalId !== 'string' || externalId === '') {
      throw new TypeError(`${caller}: externalId must be a non-empty string, got ${typeName(externalId)}`);
    }
    if (!this.#records.has(externalId)) {
      throw new TypeError(
        `${caller}: no ${this.#kind} with externalId ${quote(externalId)}; add it with setRecord(${quote(this.#kind)}, ...) first`,
      );
    }
    return externalId;
  }

  #check(value: unknown, caller: string): T {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new TypeError(`${caller}: the ${this.#kind} must be an object, got ${typeName(value)}`);
    }
    let copy: unknown;
    try {
      copy = structuredClone(value);
    } catch {
      throw new TypeError(`${caller}: the ${this.#kind} must be plain data (JSON-like), without functions`);
    }
    const result = this.#schema.safeParse(copy);
    if (!result.success) {
      const issue = result.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
      throw new TypeError(`${caller}: not a valid ${this.#kind}${where}: ${issue?.message ?? 'invalid'}`);
    }
    if (result.data.externalId === '') throw new TypeError(`${caller}: externalId must not be empty`);
    return result.data;
  }
}

function checkAfterReads(options: ChangeOptions | undefined, caller: string): number {
  if (options === undefined) return 0;
  if (options === null || typeof options !== 'object') throw new TypeError(`${caller}: options must be an object`);
  const value = options.afterReads ?? 0;
  if (!Number.isInteger(value) || value < 0) {
    throw new TypeError(`${caller}: afterReads must be a whole number of at least 0, got ${quote(value)}`);
  }
  return value;
}
