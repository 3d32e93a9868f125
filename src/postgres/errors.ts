import { CheckoutError } from '../errors.js';
import { escapeControl } from '../internal/quote.js';
import { countOf } from '../internal/count.js';

/**
 * Which store operation a {@link PostgresStoreError} comes from.
 */
export type PostgresStoreOperation =
  | 'claim'
  | 'complete'
  | 'release'
  | 'transact'
  | 'schema'
  | 'purge'
  // PostgresStatusStore's
  | 'watch'
  | 'unwatch'
  | 'nudge'
  | 'extend'
  | 'commit'
  | 'reschedule'
  | 'get'
  | 'count'
  | 'reclaim'
  | 'rememberKey'
  | 'findByKey';

/**
 * A statement behind `PostgresEventStore` or `PostgresStatusStore` failed: the connection was refused or lost, PostgreSQL
 * answered with an error (a missing table: call `ensureSchema()`), a timeout ended the
 * transaction, or `complete` found another worker's claim. `cause` holds what the driver threw;
 * the message never holds a connection string's password.
 *
 * The webhook handler answers 503 when its store fails, so the provider redelivers later.
 *
 * @example
 * try {
 *   await store.ensureSchema();
 * } catch (error) {
 *   if (error instanceof PostgresStoreError) logger.error(`${error.operation} failed`, error.cause);
 * }
 */
export class PostgresStoreError extends CheckoutError {
  override readonly name = 'PostgresStoreError' as const;
  /** The store operation that failed. */
  readonly operation: PostgresStoreOperation;

  constructor(message: string, options: { operation: PostgresStoreOperation; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.operation = options.operation;
  }
}

/** `error` (from the driver) as a {@link PostgresStoreError} of `operation`, with a short masked reason. */
export function storeError(operation: PostgresStoreOperation, error: unknown): PostgresStoreError {
  if (error instanceof PostgresStoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const masked =
    escapeControl(
      message
        .replace(/\/\/[^\s/@]*@/g, '//***@')
        .replace(/\s+/g, ' ')
        .trim(),
    ) || 'unknown error';
  const reason = masked.length > 200 ? `${masked.slice(0, 200)}…` : masked;
  const suffix = typeof code === 'string' && code !== '' && !reason.includes(code) ? ` (${code})` : '';
  const attempts = (error as { attempts?: unknown } | null)?.attempts;
  if (code === '40001' || code === '40P01') {
    // said for what it is: contention the server's isolation level creates, not an outage
    const what = code === '40001' ? 'a serialization failure' : 'a deadlock';
    const tries =
      typeof attempts !== 'number' ? '' : attempts === 1 ? ' in its only attempt' : ` in each of ${countOf(attempts, 'attempt')}`;
    return new PostgresStoreError(
      `PostgreSQL ${operation} failed: ${what} (${code})${tries}: ${reason}. The store's own transactions run at READ COMMITTED; ` +
        "a statement outside them runs at the server's default_transaction_isolation, where concurrent trackers or deliveries conflict: " +
        'it is retried, and handed over again later when it keeps failing',
      { operation, cause: error },
    );
  }
  return new PostgresStoreError(`PostgreSQL ${operation} failed: ${reason}${suffix}`, { operation, cause: error });
}

/**
 * Why a {@link PostgresTransactionError} was thrown.
 */
export type PostgresTransactionErrorReason = 'misuse' | 'ended' | 'lost' | 'unsupported-driver';

/**
 * A delivery's transaction could not be trusted, so nothing was acknowledged:
 *
 * - `'misuse'`: `onEvent` ended or replaced its transaction (`COMMIT`, `ROLLBACK`, `BEGIN` through
 *   `transaction`), released or `end()`ed it, or returned while a statement on it was still running. The
 *   delivery fails (500), its claim is released, and the message says what to do instead.
 * - `'ended'`: a statement was started on `transaction` after `onEvent` returned; it is refused,
 *   never run (it would land in another delivery's transaction).
 * - `'lost'`: the transaction's session died or stopped answering (a restart, a reset, a blackholed
 *   network); the delivery fails with 503 and is redelivered.
 * - `'unsupported-driver'`: `transactional: true` with postgres.js, which can run a dead
 *   transaction's statements on another session (porsager/postgres#1155); use `pg`.
 *
 * @example
 * onEvent: async ({ transaction }) => {
 *   await transaction.query('SAVEPOINT partial'); // not COMMIT / ROLLBACK: the store commits
 * }
 */
export class PostgresTransactionError extends CheckoutError {
  override readonly name = 'PostgresTransactionError' as const;
  /** Why the transaction was refused. */
  readonly reason: PostgresTransactionErrorReason;
  /** True when `onEvent` misused the transaction: the webhook handler answers 500 (not 503). */
  readonly misuse: boolean;

  constructor(message: string, options: { reason: PostgresTransactionErrorReason }) {
    super(message);
    this.reason = options.reason;
    this.misuse = options.reason === 'misuse';
  }
}
