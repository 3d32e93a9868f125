import { CheckoutError } from '../errors.js';

/**
 * Which store operation a {@link RedisStoreError} comes from.
 */
export type RedisStoreOperation =
  | 'claim'
  | 'complete'
  | 'release'
  | 'get'
  | 'set'
  | 'watch'
  | 'unwatch'
  | 'nudge'
  | 'count'
  | 'extend'
  | 'commit'
  | 'reschedule'
  | 'reclaim'
  | 'rememberKey'
  | 'findByKey';

/**
 * A Redis command behind `RedisEventStore`, `RedisTokenStore` or `RedisStatusStore` failed: the connection was refused
 * or lost, the command ran past `commandTimeoutMs`, Redis answered with an error, or the reply made
 * no sense. `cause` holds what the Redis client threw (for the token store, a copy without the
 * command's arguments, which hold the token). The message never holds a stored value.
 *
 * The webhook handler answers 503 when its store fails, so the provider redelivers later.
 *
 * @example
 * try {
 *   await store.claim(eventId, 60_000);
 * } catch (error) {
 *   if (error instanceof RedisStoreError) logger.warn(`${error.operation} failed`, error.cause);
 * }
 */
export class RedisStoreError extends CheckoutError {
  override readonly name = 'RedisStoreError' as const;
  /** The store operation that failed. */
  readonly operation: RedisStoreOperation;

  constructor(message: string, options: { operation: RedisStoreOperation; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.operation = options.operation;
  }
}
