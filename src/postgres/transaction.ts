import { untilAborted } from '../internal/abort.js';
import { MAX_TIMER_MS } from '../internal/arguments.js';
import { PostgresTransactionError, storeError } from './errors.js';
import type { PgPoolClientLike, PgPoolLike } from './pg-types.js';
import { PgSession } from './pg-session.js';

/** What {@link runProvenTransaction} hands `work`. */
export interface ProvenTransaction {
  /** `txid_current()` at `BEGIN`: a statement proves it runs in this transaction with `txid_current() = $n::bigint`. */
  readonly txid: string;
  query(text: string, values: unknown[]): Promise<Record<string, unknown>[]>;
  /** The client for partner code: refuses what ends the transaction, `release()`, `end()`, and any statement once it is over. */
  readonly handle: PgPoolClientLike;
  /** Rejects (`misuse`) when the partner code misused {@link handle} or the session left the transaction that began. */
  prove(): Promise<void>;
  /**
   * Closes {@link handle} and throws the misuse it saw: {@link prove} without the round trip, before a statement that proves the
   * txid itself (call {@link prove} when that finds nothing). Call it as soon as the partner code returns.
   */
  closeHandle(): void;
  readonly lost: boolean;
  readonly opened: readonly Record<string, unknown>[][];
}

/**
 * Statements folded into the transaction's two round trips (`prelude`, `BEGIN`, txid, `opening`; `closing`, `COMMIT`). Sent
 * without parameters, as the simple query protocol takes several statements only so: inline values with `textLiteral`.
 */
export interface ProvenTransactionScript {
  /** Committed in a transaction of their own just before `BEGIN`: they stay whatever becomes of the proven one. */
  prelude?: string | undefined;
  opening?: string | undefined;
  /** A data-modifying statement with `RETURNING`, built from the txid: `COMMIT` follows only if it ran here and returned a row. */
  closing?: { statement: (txid: string) => string; unapplied: string } | undefined;
}

export interface ProvenTransactionBounds {
  /** PostgreSQL ends the transaction past this (`statement_timeout`, `idle_in_transaction_session_timeout`). */
  leaseMs: number;
  /** How much longer the client waits before it destroys the connection, should the server's end never arrive. */
  graceMs: number;
}

const LEASE_GRACE_MS = 2_000;

export function leaseBounds(leaseMs: number): ProvenTransactionBounds {
  return { leaseMs, graceMs: Math.min(Math.max(leaseMs * 0.25, 250), LEASE_GRACE_MS) };
}

class WorkFailure {
  constructor(
    readonly error: unknown,
    readonly lost: boolean,
  ) {}
}

/** Runs the partner's code on the handle, then closes it; its rejection leaves marked as the partner's, for {@link transactFailure}. */
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

/** The partner's own error (the handler and tracker tell it by identity), unless the session died under it; a misuse as it is. */
export function transactFailure(error: unknown): unknown {
  if (error instanceof WorkFailure) return error.lost ? storeError('transact', error.error) : error.error;
  if (error instanceof PostgresTransactionError && error.misuse) return error;
  return storeError('transact', error);
}

/** What ends or replaces a transaction; `ROLLBACK TO SAVEPOINT`, in every spelling, stays allowed. */
const ENDS_TRANSACTION =
  /^(?:\s|--[^\n]*\n|\/\*[^]*?\*\/)*(?:begin|start\s+transaction|commit|end|abort|rollback(?!\s+(?:(?:work|transaction)\s+)?to\b)|prepare\s+transaction)\b/i;

/**
 * Runs `work` in a transaction on one `pg` connection, proven by the txid recorded at `BEGIN`, so nothing commits in another
 * session's transaction. `work` resolves: `COMMIT`; rejects: `ROLLBACK`, that error. A session that died, timed out or was
 * misused is destroyed, never reused. `signal` aborting closes the connection at once (PostgreSQL rolls back).
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
  // a longer timer fires at once
  const boundMs = Math.min(Math.ceil(bounds.leaseMs + bounds.graceMs), MAX_TIMER_MS);
  const session = await PgSession.open(pool, boundMs);
  let state: 'open' | 'ended' = 'open';
  let misuse: string | undefined;
  let pending = 0;
  let handleOpen = true;
  // once COMMIT or ROLLBACK answered: a session in any other state is destroyed, not reused
  let settled = false;
  // the client's side of the lease, should PostgreSQL's end never reach us
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
    // READ COMMITTED whatever the server's default: at REPEATABLE READ or SERIALIZABLE a row another delivery changed fails
    // with 40001 instead of being re-checked
    const prelude =
      script.prelude === undefined
        ? ''
        : `BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL statement_timeout = ${leaseText}; ${script.prelude}; COMMIT; `;
    const opening = script.opening === undefined ? '' : `; ${script.opening}`;
    const results = await session.query(
      // set_config(…, true) is SET LOCAL
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
          // a promise, as pg's end() gives
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

    // closing the connection rolls back and frees the locks at once
    const abandon = () =>
      session.destroy(
        new PostgresTransactionError('the work in the transaction was given up: its connection was closed', { reason: 'lost' }),
      );
    let result: T;
    try {
      if (signal?.aborted === true) abandon();
      signal?.addEventListener('abort', abandon, { once: true });
      try {
        // a session that dies under work ends the wait: nothing can commit
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
      // after a misuse the session's state is the partner's doing
      if (misuse !== undefined) session.destroy(refuse(misuse, 'misuse'));
      throw error;
    }
    if (misuse !== undefined) throw refuse(misuse, 'misuse'); // work did not call prove()
    if (script.closing === undefined) {
      await session.query('COMMIT', undefined, boundMs);
      settled = true;
      return result;
    }
    handleOpen = false; // no partner statement after the closing one
    if (pending > 0) throw refuse((misuse = MISUSE_PENDING), 'misuse');
    try {
      // an error skips the rest of a simple query: COMMIT runs only after the closing statement's proof
      await session.query(`${closingSql(script.closing.statement(txid), txid)}; COMMIT`, undefined, boundMs);
      settled = true;
      return result;
    } catch (error) {
      const refusal = closingRefusal(error);
      if (refusal === 'replaced') misuse = MISUSE_REPLACED;
      // COMMIT did not run: the transaction is aborted, or ended when it was replaced
      if (session.broken === undefined) {
        try {
          await session.query('ROLLBACK', undefined, boundMs);
          settled = misuse === undefined; // a misused session is not reused
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
    // BEGIN or COMMIT failed, or a misuse: PostgreSQL rolls back what is left when the connection closes
    if (!settled)
      session.destroy(
        new PostgresTransactionError('the transaction did not end cleanly: its connection is closed, not reused', { reason: 'lost' }),
      );
    session.release();
  }
}

/** Tells the txid's result apart from the opening statements'. */
const TXID_COLUMN = 'checkout_sdk_proven_txid';
const CLOSING_MARK = 'checkout-partner-sdk: not closed: ';

/**
 * `statement` as a CTE whose outer query fails (a marked text cast to integer, 22P02) outside transaction `txid` or when it
 * returned no row. `txid_current()` is not immutable, so the planner never folds the failing branch: it fails only when reached.
 */
function closingSql(statement: string, txid: string): string {
  return `WITH closing AS (${statement})
SELECT CASE
  WHEN txid_current() <> ${txid}::bigint THEN ('${CLOSING_MARK}replaced ' || txid_current()::text)::int
  WHEN NOT EXISTS (SELECT 1 FROM closing) THEN ('${CLOSING_MARK}unapplied ' || txid_current()::text)::int
  ELSE 1 END AS closed`;
}

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
