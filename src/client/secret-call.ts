import { CheckoutError } from '../errors.js';
import { untilAborted } from '../internal/abort.js';
import { typeName } from '../internal/type-name.js';

/** A `partnerSecret` function's secret, bounded by `timeoutMs`: a hung secret manager must not hold every call. */
export async function callSecret(secretFn: () => string | Promise<string>, signal: AbortSignal, timeoutMs: number): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CheckoutError(
            `The partnerSecret function did not settle within timeoutMs (${timeoutMs} ms); no token exchange was attempted`,
          ),
        ),
      timeoutMs,
    );
  });
  let secret: unknown;
  try {
    secret = await untilAborted(Promise.race([Promise.resolve().then(secretFn), timedOut]), signal);
  } catch (error) {
    if (signal.aborted || error instanceof CheckoutError) throw error;
    throw new CheckoutError('The partnerSecret function threw; no token exchange was attempted', { cause: error });
  } finally {
    clearTimeout(timer);
  }
  if (typeof secret !== 'string' || secret === '') {
    throw new TypeError(`The partnerSecret function must return a non-empty string, got ${typeName(secret)}`);
  }
  return secret;
}
