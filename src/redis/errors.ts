import { CheckoutError } from '../errors.js';

/** Which store operation a {@link RedisStoreError} comes from. */
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
 * A Redis store's command failed: refused or lost connection, past `commandTimeoutMs`, an error reply, or a reply that made no
 * sense. `cause` is what the client threw (the token store's: a copy without the token); the message never holds a stored value.
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
