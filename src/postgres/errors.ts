import { CheckoutError } from '../errors.js';
import { escapeControl } from '../internal/quote.js';

/** Which store operation a {@link PostgresStoreError} comes from. */
export type PostgresStoreOperation = 'claim' | 'complete' | 'release' | 'transact' | 'schema' | 'purge';

/**
 * A statement behind `PostgresEventStore` failed: the connection was refused or lost, PostgreSQL
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
  const masked = escapeControl(message.replace(/\/\/[^\s/@]*@/g, '//***@').replace(/\s+/g, ' ').trim()) || 'unknown error';
  const reason = masked.length > 200 ? `${masked.slice(0, 200)}…` : masked;
  const suffix = typeof code === 'string' && code !== '' && !reason.includes(code) ? ` (${code})` : '';
  return new PostgresStoreError(`PostgreSQL ${operation} failed: ${reason}${suffix}`, { operation, cause: error });
}
