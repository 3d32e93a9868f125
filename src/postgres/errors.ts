import { CheckoutError } from '../errors.js';
import { escapeControl } from '../internal/quote.js';
import { countOf } from '../internal/count.js';

/** Which store operation a {@link PostgresStoreError} comes from. */
export type PostgresStoreOperation =
  | 'claim'
  | 'complete'
  | 'release'
  | 'transact'
  | 'schema'
  | 'purge'
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
 * A PostgreSQL store's statement failed: connection refused or lost, an error from PostgreSQL (a missing table: `ensureSchema()`),
 * a timeout, or `complete` found another claim. `cause` is what the driver threw; the message never holds a password.
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

/** Why a {@link PostgresTransactionError} was thrown. */
export type PostgresTransactionErrorReason = 'misuse' | 'ended' | 'lost' | 'unsupported-driver';

/**
 * A store's transaction could not be trusted, so nothing was recorded. `'misuse'`: the partner's code ended, replaced, released
 * or `end()`ed it, or left a statement running (500; use SAVEPOINT for partial undo). `'ended'`: a statement after the code
 * returned, refused. `'lost'`: its session died (503, redelivered). `'unsupported-driver'`: `transactional: true` with postgres.js.
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
