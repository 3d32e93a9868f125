import { afterThisTurn } from '../internal/after-this-turn.js';

/** The most reschedules one statement carries. */
const MOST_PER_STATEMENT = 100;

interface Pending {
  /** The `endTurn` values of one record (kind and key first). */
  values: unknown[];
  resolve: (ended: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * The reschedules (turn ends without a status) that reach the store in one turn of the event loop,
 * sent together: a tracker's reads that end together end their turns in one statement (one round
 * trip, one transaction) rather than one each. One alone is sent as it came, at once after the
 * turn of the loop that asked for it; each caller still learns whether its own lease held.
 */
export class TurnEnds {
  readonly #one: (values: unknown[]) => Promise<boolean>;
  readonly #many: (pending: unknown[][]) => Promise<Set<string>>;
  #pending: Pending[] = [];

  /**
   * @param one ends one record's turn (the `endTurn` values); resolves whether its lease held.
   * @param many ends several (each one's `endTurn` values, no record twice); resolves the records
   *   whose lease held, as {@link recordId} of their kind and key.
   */
  constructor(one: (values: unknown[]) => Promise<boolean>, many: (pending: unknown[][]) => Promise<Set<string>>) {
    this.#one = one;
    this.#many = many;
  }

  /** Ends the turn whose `endTurn` values these are (with the next turn of the loop's others); resolves whether its lease held. */
  add(values: unknown[]): Promise<boolean> {
    const id = recordId(values[0], values[1]);
    // a record twice in one statement would be ended once: a second reschedule of it goes on its own
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

/** A record's id among the turn ends: its kind and its key column. */
export function recordId(kind: unknown, key: unknown): string {
  return `${String(kind)}\u0000${String(key)}`;
}
