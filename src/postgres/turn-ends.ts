import { afterThisTurn } from '../internal/after-this-turn.js';

const MOST_PER_STATEMENT = 100;

interface Pending {
  values: unknown[];
  resolve: (ended: boolean) => void;
  reject: (error: unknown) => void;
}

/** The reschedules that reach the store in one turn of the event loop, sent in one statement; each caller learns if its lease held. */
export class TurnEnds {
  readonly #one: (values: unknown[]) => Promise<boolean>;
  readonly #many: (pending: unknown[][]) => Promise<Set<string>>;
  #pending: Pending[] = [];

  /** `many` gets no record twice and resolves the {@link recordId}s whose lease held. */
  constructor(one: (values: unknown[]) => Promise<boolean>, many: (pending: unknown[][]) => Promise<Set<string>>) {
    this.#one = one;
    this.#many = many;
  }

  add(values: unknown[]): Promise<boolean> {
    const id = recordId(values[0], values[1]);
    // one statement would end a record only once
    if (this.#pending.some((p) => recordId(p.values[0], p.values[1]) === id)) return this.#one(values);
    return new Promise<boolean>((resolve, reject) => {
      if (this.#pending.length === 0) afterThisTurn(() => this.#flush());
      this.#pending.push({ values, resolve, reject });
      if (this.#pending.length >= MOST_PER_STATEMENT) this.#flush();
    });
  }

  #flush(): void {
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    if (batch.length === 1) {
      const [only] = batch;
      this.#one(only!.values).then(only!.resolve, only!.reject);
      return;
    }
    this.#many(batch.map((p) => p.values)).then(
      (ended) => {
        for (const p of batch) p.resolve(ended.has(recordId(p.values[0], p.values[1])));
      },
      (error: unknown) => {
        for (const p of batch) p.reject(error);
      },
    );
  }
}

export function recordId(kind: unknown, key: unknown): string {
  return `${String(kind)}\u0000${String(key)}`;
}
