import { CheckoutError } from '../../errors.js';
import { typeName } from '../../internal/type-name.js';
import { secretList, type WebhookSecret } from '../signature/signature.js';

/**
 * The handler's `secret`: the signing secret, a list while rotating, or a function returning either (may be
 * async), called per delivery so a rotated secret is taken without a restart.
 */
export type WebhookSecretSource = WebhookSecret | (() => WebhookSecret | PromiseLike<WebhookSecret>);

export class WebhookSecretError extends CheckoutError {
  override readonly name = 'WebhookSecretError' as const;
}

export type SecretReader = () => readonly string[] | Promise<readonly string[]>;

/** A function's unchanged result gives back the previous list (HMAC keys are cached by value), so it costs only its call. */
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

function sameSecrets(value: unknown, list: readonly string[]): boolean {
  if (typeof value === 'string') return list.length === 1 && list[0] === value;
  if (!Array.isArray(value) || value.length !== list.length || list.length === 0) return false;
  for (let i = 0; i < list.length; i += 1) if (value[i] !== list[i]) return false;
  return true;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** A partner's own error: it never holds what the SDK guards. */
function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `a ${typeName(error)}`;
}
