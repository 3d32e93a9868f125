import { CheckoutError } from '../../errors.js';
import { typeName } from '../../internal/type-name.js';
import { secretList, type WebhookSecret } from '../signature/signature.js';

/**
 * The handler's `secret` option: the signing secret, a list of them while rotating, or a function
 * (sync or async) returning either, called per delivery so a rotated secret is taken without a
 * restart.
 *
 * @example
 * // read per delivery: during a rotation the store holds the old and the new secret
 * createWebhookHandler({ secret: () => secrets.current(), client, onEvent });
 */
export type WebhookSecretSource = WebhookSecret | (() => WebhookSecret | PromiseLike<WebhookSecret>);

/**
 * A `secret` function threw, rejected or returned something other than a non-empty secret or list
 * of them: the delivery is answered 503 `secret-unavailable`, so the provider redelivers it.
 */
export class WebhookSecretError extends CheckoutError {
  override readonly name = 'WebhookSecretError' as const;
}

/** The secrets of one delivery: at once for a fixed secret or a sync function, else a promise. */
export type SecretReader = () => readonly string[] | Promise<readonly string[]>;

/**
 * The `secret` option as a reader, checked once. A fixed secret or list is a snapshot taken now; a
 * function is called per delivery and its result checked each time (a `WebhookSecretError` when it
 * is not usable). An unchanged result gives back the previous list, and the HMAC keys are cached by
 * secret value, so a function that returns the same secrets costs only its own call.
 */
export function secretReader(secret: unknown): SecretReader {
  if (typeof secret !== 'function') {
    const fixed = secretList(secret);
    return () => fixed;
  }
  const source = secret as () => unknown;
  let last: readonly string[] = [];
  const check = (value: unknown): readonly string[] => {
    if (sameSecrets(value, last)) return last;
    try {
      last = secretList(value, "the secret function's result");
    } catch (error) {
      throw new WebhookSecretError(`The webhook secret is unavailable: ${(error as TypeError).message}`, { cause: error });
    }
    return last;
  };
  const failed = (error: unknown): never => {
    throw new WebhookSecretError(`The webhook secret is unavailable: the secret function threw ${describe(error)}`, { cause: error });
  };
  return () => {
    let value: unknown;
    try {
      value = source();
    } catch (error) {
      failed(error);
    }
    return isThenable(value) ? Promise.resolve(value).then(check, failed) : check(value);
  };
}

/** Whether `value` holds exactly the secrets of `list` (a string for a one-item list), in order. */
function sameSecrets(value: unknown, list: readonly string[]): boolean {
  if (typeof value === 'string') return list.length === 1 && list[0] === value;
  if (!Array.isArray(value) || value.length !== list.length || list.length === 0) return false;
  for (let i = 0; i < list.length; i += 1) if (value[i] !== list[i]) return false;
  return true;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** The thrown value's name and message (a partner's own error: it never holds what the SDK guards). */
function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `a ${typeName(error)}`;
}
