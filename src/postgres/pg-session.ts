import type { PgPoolClientLike, PgPoolLike } from './pg-types.js';

/** A statement or a checkout did not answer in time; `aftermath` says what became of its connection. */
export class TimedOut extends Error {
  override readonly name = 'TimedOut';
  constructor(what: string, ms: number, aftermath = 'the connection is destroyed') {
    super(`${what} did not answer within ${ms} ms (${aftermath})`);
  }
}

/**
 * `promise`, or a {@link TimedOut} rejection after `ms` (then `onTimeout` runs). A late resolve of
 * `promise` is handed to `late`, so a checkout that arrives after its deadline is given back.
 * `aftermath` is what the message says became of the connection (by default: destroyed).
 */
export function within<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
  onTimeout: () => void,
  late?: (value: T) => void,
  aftermath?: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      onTimeout();
      reject(new TimedOut(what, ms, aftermath));
    }, ms);
    promise.then(
      (value) => {
        if (settled) return late?.(value);
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

type Listener = (error: unknown) => void;
interface ClientInternals {
  on?(name: string, listener: Listener): void;
  off?(name: string, listener: Listener): void;
  connection?: { stream?: { destroy?(): void } };
}

/**
 * One checked-out `pg` client whose connection is either given back healthy or destroyed: a
 * session PostgreSQL ends (its `'error'`), a statement past its bound, or a failed rollback marks it
 * broken, and a broken client is released with the error (the pool discards it) and its socket
 * destroyed at once, so a blackholed connection neither holds a pool slot nor keeps the process alive.
 */
export class PgSession {
  readonly client: PgPoolClientLike;
  #broken: Error | undefined;
  #released = false;
  readonly #onError: Listener;
  #ended!: (error: Error) => void;
  /** Rejects with why, once the session is broken (never resolves). */
  readonly ended = new Promise<never>((_, reject) => (this.#ended = reject));

  private constructor(client: PgPoolClientLike) {
    this.client = client;
    this.ended.catch(() => undefined);
    this.#onError = (error) => this.destroy(error instanceof Error ? error : new Error(String(error)));
    (client as ClientInternals).on?.('error', this.#onError);
  }

  /** Checks out a client within `timeoutMs` (one that arrives later is given back at once). */
  static async open(pool: PgPoolLike, timeoutMs: number): Promise<PgSession> {
    const client = await within(
      pool.connect(),
      timeoutMs,
      'connecting to PostgreSQL',
      () => undefined,
      (late) => late.release(),
    );
    return new PgSession(client);
  }

  /** Why the session cannot be used, or undefined while it can. */
  get broken(): Error | undefined {
    return this.#broken;
  }

  /** Runs one statement within `timeoutMs`; past it, or when the session is broken, rejects (and destroys it). */
  async query(text: string, values: unknown[] | undefined, timeoutMs: number): Promise<unknown> {
    if (this.#broken !== undefined) throw this.#broken;
    const running = Promise.resolve(this.client.query(text, values));
    return within(running, timeoutMs, 'a PostgreSQL statement', () => this.destroy(new TimedOut('a PostgreSQL statement', timeoutMs)));
  }

  /** Rows of a one-statement {@link query}. */
  async rows(text: string, values: unknown[], timeoutMs: number): Promise<Record<string, unknown>[]> {
    const result = (await this.query(text, values, timeoutMs)) as { rows?: unknown };
    return Array.isArray(result.rows) ? (result.rows as Record<string, unknown>[]) : [];
  }

  /** Marks the session broken, gives it back with the error (the pool discards it) and destroys its socket. */
  destroy(error: Error): void {
    this.#broken ??= error;
    this.#ended(this.#broken);
    this.#giveBack();
  }

  /** Gives a healthy session back to the pool, a broken one to be discarded. Safe to call twice. */
  release(): void {
    this.#giveBack();
  }

  #giveBack(): void {
    if (this.#released) return;
    this.#released = true;
    const internals = this.client as ClientInternals;
    // a discarded client keeps the listener: an error it emits while ending must not crash the process
    if (this.#broken === undefined) internals.off?.('error', this.#onError);
    try {
      this.client.release(this.#broken);
    } finally {
      // release(error) ends the client gracefully, which on a blackholed socket never completes
      // (pool.end() would wait for it forever): the socket is destroyed, which completes it
      if (this.#broken !== undefined) internals.connection?.stream?.destroy?.();
    }
  }
}
