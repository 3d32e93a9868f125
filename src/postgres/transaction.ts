import { untilAborted } from '../internal/abort.js';
import { MAX_TIMER_MS } from '../internal/arguments.js';
import { PostgresTransactionError, storeError } from './errors.js';
import type { PgPoolClientLike, PgPoolLike } from './pg-types.js';
import { PgSession } from './pg-session.js';

/** What {@link runProvenTransaction} hands `work`. */
export interface ProvenTransaction {
  /** `txid_current()` recorded right after `BEGIN`, as text: a statement that must run in this transaction can prove it with `txid_current() = $n::bigint`. */
  readonly txid: string;
  /** Runs one of the caller's own statements in the transaction, bounded like every other. */
  query(text: string, values: unknown[]): Promise<Record<string, unknown>[]>;
  /**
   * The `pg` client to hand to partner code (`onEvent`'s `transaction`): it refuses `BEGIN`,
   * `COMMIT`, `ROLLBACK`, `END`, `ABORT`, `release()`, `end()`, and every statement once the transaction
   * has ended or its session died, with a {@link PostgresTransactionError}.
   */
  readonly handle: PgPoolClientLike;
  /**
   * Rejects with a {@link PostgresTransactionError} (`reason: 'misuse'`) when the partner code
   * misused {@link handle}, left a statement running on it, or the session is no longer in the
   * transaction that began (`txid_current()` differs: a COMMIT or ROLLBACK got through).
   */
  prove(): Promise<void>;
  /**
   * Closes {@link handle} (every later statement on it is refused: call it as soon as the partner
   * code returns, before the caller's own last statements) and throws the misuse it saw (a refused
   * statement, `release()`, a statement still running). The part of {@link prove} that needs no
   * round trip: use it before a statement that proves the txid itself
   * (`WHERE txid_current() = $n::bigint`), and call {@link prove} when that finds nothing.
   */
  closeHandle(): void;
  /** Whether the session died or was destroyed (a statement on it can no longer succeed). */
  readonly lost: boolean;
  /** The rows of each statement of {@link ProvenTransactionScript.opening}, in order (empty without one). */
  readonly opened: readonly Record<string, unknown>[][];
}

/**
 * Statements {@link runProvenTransaction} folds into its own round trips, so that a transaction
 * costs two: `prelude`, `BEGIN`, the bounds, the txid and `opening` in the first; `closing` and
 * `COMMIT` in the last. They are sent without parameters (the simple query protocol, the only one
 * that takes several statements at once): every value in them must be inlined as a literal that
 * cannot break out of it (see `textLiteral` in `sql.ts`).
 */
export interface ProvenTransactionScript {
  /**
   * Statements committed in a transaction of their own (READ COMMITTED, bounded by the same
   * `statement_timeout`) just before `BEGIN`: they stay whatever becomes of the proven transaction
   * (e.g. a row every later transaction can lock, inserted where no transaction waits on it).
   */
  prelude?: string | undefined;
  /** Statements run in the transaction right after its txid is recorded; their rows are {@link ProvenTransaction.opened}. */
  opening?: string | undefined;
  /**
   * The last statement before `COMMIT`, sent in `COMMIT`'s round trip: a data-modifying statement
   * with `RETURNING` (e.g. `UPDATE … WHERE … AND txid_current() = <txid>::bigint RETURNING 1`),
   * built from the recorded txid. It is run as a CTE whose outer query raises an error unless it ran
   * in the transaction that began and returned a row, so a `COMMIT` after it happens only then:
   * another transaction (the partner ended or replaced it) fails with the misuse error, no row with
   * a {@link PostgresTransactionError} (`reason: 'misuse'`) saying `unapplied`, both rolled back.
   */
  closing?: { statement: (txid: string) => string; unapplied: string } | undefined;
}

/** Bounds of {@link runProvenTransaction}, all in milliseconds. */
export interface ProvenTransactionBounds {
  /**
   * PostgreSQL ends the transaction itself past this: `statement_timeout` and
   * `idle_in_transaction_session_timeout` are set to it for the transaction (`SET LOCAL`).
   */
  leaseMs: number;
  /**
   * How much longer than `leaseMs` the client waits before it destroys the connection itself (the
   * server's own end never reached it: a blackholed network); every single statement of the
   * runner, and the checkout, is bounded by `leaseMs + graceMs` too.
   */
  graceMs: number;
}

/** The most a transaction's connection is kept past its lease when PostgreSQL's own end of it never arrives. */
const LEASE_GRACE_MS = 2_000;

/** The bounds of a store's transaction that PostgreSQL ends at `leaseMs`: a grace of a quarter of it, from 250 ms to 2 s. */
export function leaseBounds(leaseMs: number): ProvenTransactionBounds {
  return { leaseMs, graceMs: Math.min(Math.max(leaseMs * 0.25, 250), LEASE_GRACE_MS) };
}

/** The partner's code rejected inside a store's transaction: carried out of it to {@link transactFailure}. */
class WorkFailure {
  constructor(
    readonly error: unknown,
    /** Whether the session had died by then (the partner's statement failed because of it). */
    readonly lost: boolean,
  ) {}
}

/**
 * Runs the partner's code of a store's `transact` (`onEvent`, `onChange`) on the transaction's
 * handle, then closes the handle, so a statement on it after this is refused. When the code
 * rejects, the handle is closed as well and the rejection leaves marked as the partner's, for the
 * store's `catch` to hand to {@link transactFailure}.
 */
export async function runPartnerWork(transaction: ProvenTransaction, work: (handle: PgPoolClientLike) => Promise<void>): Promise<void> {
  try {
    await work(transaction.handle);
  } catch (error) {
    try {
      transaction.closeHandle();
    } catch {
      // the partner's own error is the one to report
    }
    throw new WorkFailure(error, transaction.lost);
  }
  transaction.closeHandle();
}

/**
 * What a store's `transact` rejects with once {@link runProvenTransaction} rejected with `error`:
 * the partner's own error when its code failed (the transaction rolled back; the handler and the
 * tracker tell it by identity), unless the session had died under it (a store failure then); a
 * misuse of the transaction as it is (its message says what to do instead); anything else as the
 * store's error (operation `'transact'`).
 */
export function transactFailure(error: unknown): unknown {
  if (error instanceof WorkFailure) return error.lost ? storeError('transact', error.error) : error.error;
  if (error instanceof PostgresTransactionError && error.misuse) return error;
  return storeError('transact', error);
}

/**
 * `BEGIN`, `COMMIT` and the rest that end or replace a transaction; `ROLLBACK [WORK | TRANSACTION]
 * TO [SAVEPOINT]` (partial undo, in every spelling PostgreSQL takes) stays allowed.
 */
const ENDS_TRANSACTION =
  /^(?:\s|--[^\n]*\n|\/\*[^]*?\*\/)*(?:begin|start\s+transaction|commit|end|abort|rollback(?!\s+(?:(?:work|transaction)\s+)?to\b)|prepare\s+transaction)\b/i;

/**
 * Runs `work` in a transaction on one `pg` connection whose every statement is proven to belong to
 * it: `txid_current()` is recorded at `BEGIN`, the caller proves it before committing (see
 * {@link ProvenTransaction.prove} and {@link ProvenTransaction.txid}), and the partner's handle is
 * refused once the transaction is over. Waits are bounded (see {@link ProvenTransactionBounds}); a
 * session that died or timed out is destroyed, never given back to the pool or used again.
 *
 * `work` resolves → `COMMIT`, then the result. `work` rejects → `ROLLBACK`, then that same error
 * (the connection is destroyed when the rollback fails). Anything else (connecting, `BEGIN`,
 * `COMMIT`, a lost session) rejects with what the driver threw or a timeout, and nothing commits
 * that was not proven. `signal` aborting while `work` runs closes the connection (PostgreSQL rolls
 * back) and rejects with its reason, without waiting for `work`.
 *
 * @internal Shared by the stores of `checkout-partner-sdk/postgres`.
 */
export async function runProvenTransaction<T>(
  pool: PgPoolLike,
  bounds: ProvenTransactionBounds,
  work: (transaction: ProvenTransaction) => Promise<T>,
  script: ProvenTransactionScript = {},
  signal?: AbortSignal,
): Promise<T> {
  // never past what a timer holds: a longer one fires at once (a leaseMs near 2^31 - 1 plus the grace)
  const boundMs = Math.min(Math.ceil(bounds.leaseMs + bounds.graceMs), MAX_TIMER_MS);
  const session = await PgSession.open(pool, boundMs);
  let state: 'open' | 'ended' = 'open';
  let misuse: string | undefined;
  let pending = 0;
  let handleOpen = true;
  // set once COMMIT or ROLLBACK answered: a session left in any other state is destroyed, not reused
  let settled = false;
  // the lease on the client's side: PostgreSQL ends the transaction at leaseMs, and when that never
  // reaches us (a blackholed network) the connection is destroyed a grace later
  const lease = setTimeout(
    () =>
      session.destroy(
        new PostgresTransactionError(
          `the transaction was still open ${boundMs} ms after it began (leaseMs plus a grace): its connection was destroyed`,
          { reason: 'lost' },
        ),
      ),
    boundMs,
  );
  try {
    const leaseText = String(Math.max(1, Math.ceil(bounds.leaseMs)));
    // one round trip, parameters inlined (two integers, and the script's literals): the prelude in a
    // transaction of its own, BEGIN at the isolation level the store's statements were written for
    // (whatever the server's default_transaction_isolation: at REPEATABLE READ or SERIALIZABLE a row
    // another delivery changed fails with 40001 instead of being re-checked), the bounds, the txid
    // to prove and the opening statements
    const prelude =
      script.prelude === undefined
        ? ''
        : `BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL statement_timeout = ${leaseText}; ${script.prelude}; COMMIT; `;
    const opening = script.opening === undefined ? '' : `; ${script.opening}`;
    const results = await session.query(
      // set_config(…, true) is SET LOCAL; in the txid's statement, it saves the server two statements
      `${prelude}BEGIN ISOLATION LEVEL READ COMMITTED; SELECT set_config('statement_timeout', '${leaseText}', true), set_config('idle_in_transaction_session_timeout', '${leaseText}', true), txid_current()::text AS ${TXID_COLUMN}${opening}`,
      undefined,
      boundMs,
    );
    const all = (Array.isArray(results) ? results : [results]) as { rows?: Record<string, unknown>[]; fields?: { name?: unknown }[] }[];
    const at = all.findIndex((result) => result?.fields?.length === 3 && result.fields[2]?.name === TXID_COLUMN);
    const txid = all[at]?.rows?.[0]?.[TXID_COLUMN];
    if (typeof txid !== 'string' || !/^\d+$/.test(txid))
      throw new PostgresTransactionError('BEGIN did not report its transaction id', { reason: 'lost' });
    const opened = all.slice(at + 1).map((result) => (Array.isArray(result?.rows) ? result.rows : []));

    const refuse = (why: string, reason: 'misuse' | 'ended' | 'lost'): PostgresTransactionError =>
      new PostgresTransactionError(why, { reason });
    const guardedQuery = (...args: unknown[]): unknown => {
      const callback = typeof args.at(-1) === 'function' ? (args.pop() as (error: unknown) => void) : undefined;
      const first = args[0] as { text?: unknown } | string | undefined;
      const text = typeof first === 'string' ? first : typeof first?.text === 'string' ? first.text : '';
      let refusal: PostgresTransactionError | undefined;
      if (state !== 'open' || !handleOpen) refusal = refuse(ENDED, 'ended');
      else if (session.broken !== undefined)
        refusal = refuse(
          `the delivery's database session is gone (${session.broken.message}); the delivery fails and is redelivered`,
          'lost',
        );
      else if (ENDS_TRANSACTION.test(text)) {
        misuse ??= MISUSE_CONTROL;
        refusal = refuse(MISUSE_CONTROL, 'misuse');
      }
      if (refusal !== undefined) {
        if (callback !== undefined) {
          queueMicrotask(() => callback(refusal));
          return;
        }
        return Promise.reject(refusal);
      }
      const result = (session.client.query as (...a: unknown[]) => unknown)(...args, ...(callback ? [callback] : []));
      if (result instanceof Promise) {
        pending++;
        return result.finally(() => {
          pending--;
        });
      }
      return result;
    };
    const handle = new Proxy(session.client, {
      get(target, property) {
        if (property === 'query') return guardedQuery;
        if (property === 'release') {
          return () => {
            misuse ??= MISUSE_RELEASE;
            throw refuse(MISUSE_RELEASE, 'misuse');
          };
        }
        if (property === 'end') {
          // end() would close the connection under the store: refused (a promise, as pg's end() gives)
          return () => {
            misuse ??= MISUSE_END;
            return Promise.reject(refuse(MISUSE_END, 'misuse'));
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });

    const transaction: ProvenTransaction = {
      txid,
      handle,
      get lost() {
        return session.broken !== undefined;
      },
      opened,
      query: (text, values) => session.rows(text, values, boundMs),
      closeHandle() {
        handleOpen = false;
        if (misuse === undefined && pending > 0) misuse = MISUSE_PENDING;
        if (misuse !== undefined) throw refuse(misuse, 'misuse');
      },
      async prove() {
        transaction.closeHandle();
        const rows = await session.rows('SELECT txid_current()::text AS txid', [], boundMs);
        if (rows[0]?.['txid'] !== txid) throw refuse((misuse = MISUSE_REPLACED), 'misuse');
      },
    };

    // the caller gave the work up: its connection closes now, so PostgreSQL rolls back and frees its locks
    const abandon = () =>
      session.destroy(
        new PostgresTransactionError('the work in the transaction was given up: its connection was closed', { reason: 'lost' }),
      );
    let result: T;
    try {
      if (signal?.aborted === true) abandon();
      signal?.addEventListener('abort', abandon, { once: true });
      try {
        // a session that dies under work (PostgreSQL ended it at leaseMs) ends the wait: nothing can commit
        result = await Promise.race([untilAborted(work(transaction), signal), session.ended]);
      } finally {
        signal?.removeEventListener('abort', abandon);
      }
      state = 'ended';
    } catch (error) {
      state = 'ended';
      if (session.broken === undefined) {
        try {
          await session.query('ROLLBACK', undefined, boundMs);
          settled = true;
        } catch (rollbackError) {
          session.destroy(rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)));
        }
      }
      // after a misuse the session's state is the partner's doing: it is not reused
      if (misuse !== undefined) session.destroy(refuse(misuse, 'misuse'));
      throw error;
    }
    if (misuse !== undefined) throw refuse(misuse, 'misuse'); // work did not call prove(): refuse to commit anyway
    if (script.closing === undefined) {
      await session.query('COMMIT', undefined, boundMs);
      settled = true;
      return result;
    }
    handleOpen = false; // the closing statement runs after every statement of the partner's
    if (pending > 0) throw refuse((misuse = MISUSE_PENDING), 'misuse');
    try {
      // one round trip: the closing statement raises unless it ran in this very transaction and
      // applied, and an error skips the rest of a simple query: COMMIT runs only after its proof
      await session.query(`${closingSql(script.closing.statement(txid), txid)}; COMMIT`, undefined, boundMs);
      settled = true;
      return result;
    } catch (error) {
      const refusal = closingRefusal(error);
      if (refusal === 'replaced') misuse = MISUSE_REPLACED;
      // COMMIT did not run: the transaction is aborted (or ended, when it was replaced), so it is
      // rolled back; a session that does not answer that is destroyed
      if (session.broken === undefined) {
        try {
          await session.query('ROLLBACK', undefined, boundMs);
          settled = misuse === undefined; // after a misuse the session's state is the partner's doing: not reused
        } catch {
          // destroyed in finally
        }
      }
      if (refusal === 'replaced') throw refuse(MISUSE_REPLACED, 'misuse');
      if (refusal === 'unapplied') throw refuse(script.closing.unapplied, 'misuse');
      throw error;
    }
  } finally {
    state = 'ended';
    clearTimeout(lease);
    // BEGIN failed half-way, COMMIT failed, or a misuse: PostgreSQL rolls back what is left when the connection closes
    if (!settled)
      session.destroy(
        new PostgresTransactionError('the transaction did not end cleanly: its connection is closed, not reused', { reason: 'lost' }),
      );
    session.release();
  }
}

/** The name of the txid column in BEGIN's round trip, told apart from the opening statements' columns. */
const TXID_COLUMN = 'checkout_sdk_proven_txid';
/** Marks in the error the closing statement raises (see {@link closingSql}), never in another error. */
const CLOSING_MARK = 'checkout-partner-sdk: not closed: ';

/**
 * `statement` (data-modifying, with `RETURNING`) as a CTE whose outer query fails (a cast of a
 * marked text to integer, 22P02) when the session is not in transaction `txid` or the statement
 * returned no row. `txid_current()` is not immutable, so the planner never folds the failing
 * branch in advance; it fails only when reached.
 */
function closingSql(statement: string, txid: string): string {
  return `WITH closing AS (${statement})
SELECT CASE
  WHEN txid_current() <> ${txid}::bigint THEN ('${CLOSING_MARK}replaced ' || txid_current()::text)::int
  WHEN NOT EXISTS (SELECT 1 FROM closing) THEN ('${CLOSING_MARK}unapplied ' || txid_current()::text)::int
  ELSE 1 END AS closed`;
}

/** What the closing statement's own error says, or undefined for any other error. */
function closingRefusal(error: unknown): 'replaced' | 'unapplied' | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== '22P02' || typeof message !== 'string') return undefined;
  if (message.includes(`${CLOSING_MARK}replaced `)) return 'replaced';
  if (message.includes(`${CLOSING_MARK}unapplied `)) return 'unapplied';
  return undefined;
}

const ENDED =
  "the delivery's transaction has ended (onEvent returned): a statement started on `transaction` after that is refused. Await every statement inside onEvent";
const MISUSE_CONTROL =
  'onEvent must not end or replace its transaction (BEGIN, COMMIT, ROLLBACK, END, ABORT through `transaction`): the store commits it together with the done mark. To undo part of the work use SAVEPOINT and ROLLBACK TO SAVEPOINT; to fail the event, throw';
const MISUSE_RELEASE =
  'onEvent must not release `transaction`: the store gives the connection back after it commits. Use SAVEPOINT / ROLLBACK TO SAVEPOINT for partial undo, throw to fail the event';
const MISUSE_END =
  'onEvent must not end() `transaction` (it would close the connection the store commits on): the store gives the connection back after it commits. Use SAVEPOINT / ROLLBACK TO SAVEPOINT for partial undo, throw to fail the event';
const MISUSE_PENDING =
  'onEvent returned while a statement it started on `transaction` was still running: await every statement (a write after the done mark would not be part of it). Use SAVEPOINT / ROLLBACK TO SAVEPOINT for partial undo';
const MISUSE_REPLACED =
  'onEvent ended or replaced its transaction (a COMMIT or ROLLBACK got through `transaction`, e.g. inside a multi-statement string): the event is not marked done. Do not end the transaction yourself: use SAVEPOINT and ROLLBACK TO SAVEPOINT, and throw to fail the event';
