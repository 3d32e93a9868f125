import type { PgPoolClientLike, PgPoolLike } from './pg-types.js';

export class TimedOut extends Error {
  override readonly name = 'TimedOut';
  constructor(what: string, ms: number, aftermath = 'the connection is destroyed') {
    super(`${what} did not answer within ${ms} ms (${aftermath})`);
  }
}

/** `promise`, or a {@link TimedOut} after `ms` (then `onTimeout` runs); a late value goes to `late`, so a late checkout is given back. */
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
 * A checked-out `pg` client, given back healthy or destroyed: once broken (its `'error'`, a statement past its bound, a failed
 * rollback) it is released with the error and its socket destroyed, so a dead connection holds no pool slot and no process.
 */
export class PgSession {
  readonly client: PgPoolClientLike;
  #broken: Error | undefined;
  #released = false;
  readonly #onError: Listener;
  #ended!: (error: Error) => void;
  readonly ended = new Promise<never>((_, reject) => (this.#ended = reject));

  private constructor(client: PgPoolClientLike) {
    this.client = client;
    this.ended.catch(() => undefined);
    this.#onError = (error) => this.destroy(error instanceof Error ? error : new Error(String(error)));
    (client as ClientInternals).on?.('error', this.#onError);
  }

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

  get broken(): Error | undefined {
    return this.#broken;
  }

  async query(text: string, values: unknown[] | undefined, timeoutMs: number): Promise<unknown> {
    if (this.#broken !== undefined) throw this.#broken;
    const running = Promise.resolve(this.client.query(text, values));
    return within(running, timeoutMs, 'a PostgreSQL statement', () => this.destroy(new TimedOut('a PostgreSQL statement', timeoutMs)));
  }

  async rows(text: string, values: unknown[], timeoutMs: number): Promise<Record<string, unknown>[]> {
    const result = (await this.query(text, values, timeoutMs)) as { rows?: unknown };
    return Array.isArray(result.rows) ? (result.rows as Record<string, unknown>[]) : [];
  }

  destroy(error: Error): void {
    this.#broken ??= error;
    this.#ended(this.#broken);
    this.#giveBack();
  }

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
      // release(error) ends the client gracefully, which never completes on a dead socket (pool.end() would hang)
      if (this.#broken !== undefined) internals.connection?.stream?.destroy?.();
    }
  }
}
