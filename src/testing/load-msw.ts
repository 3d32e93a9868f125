import { CheckoutError } from '../errors.js';
import type { MswFunctions } from './msw-handlers.js';

/**
 * An optional peer dependency the called feature needs is not installed (or cannot be loaded
 * here). The message says what to install, or which entry to import instead.
 *
 * @example
 * try {
 *   fake.handlers('https://checkout.test');
 * } catch (error) {
 *   if (error instanceof MissingPeerDependencyError) console.error(error.message); // npm install --save-dev msw
 * }
 */
export class MissingPeerDependencyError extends CheckoutError {
  override readonly name = 'MissingPeerDependencyError' as const;
  /** The npm package to install, e.g. `'msw'`. */
  readonly packageName: string;

  constructor(packageName: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.packageName = packageName;
  }
}

let msw: MswFunctions | undefined;

/**
 * msw, loaded on first use so that `checkout-partner-sdk/testing` itself never needs it. Synchronous
 * (as `fake.handlers()` is) through Node's `require`, which also loads msw 3's ES modules (Node
 * 22.12+) and hands back the same module instance as an `import` of msw. Elsewhere (a browser with
 * `setupWorker`), `checkout-partner-sdk/testing/msw` imports msw statically instead.
 */
export function loadMsw(): MswFunctions {
  if (msw !== undefined) return msw;
  const createRequire = globalThis.process?.getBuiltinModule?.('node:module')?.createRequire;
  const hint = "Install it (npm install --save-dev msw), or import fakeCheckoutHandlers from 'checkout-partner-sdk/testing/msw'";
  if (createRequire === undefined) {
    throw new MissingPeerDependencyError('msw', `fake.handlers() loads msw through Node's require, which this runtime lacks. Import fakeCheckoutHandlers from 'checkout-partner-sdk/testing/msw' instead.`);
  }
  try {
    msw = createRequire(import.meta.url)('msw') as MswFunctions;
  } catch (error) {
    const missing = (error as { code?: unknown } | null)?.code === 'MODULE_NOT_FOUND';
    throw new MissingPeerDependencyError(
      'msw',
      missing ? `fake.handlers() needs the optional peer dependency msw, which is not installed. ${hint}.` : `fake.handlers() could not load msw. ${hint}.`,
      { cause: error },
    );
  }
  return msw;
}
