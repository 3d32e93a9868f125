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

// tsup defines it: `true` in the CommonJS build, `false` in the ESM build (undefined in tests of the sources)
declare const __CHECKOUT_SDK_CJS__: boolean | undefined;
// the CommonJS build's own `require` (tsup.config.ts names it so; module-scoped, so no Node types are needed)
declare const __CHECKOUT_SDK_REQUIRE__: (id: string) => unknown;

/**
 * msw, loaded on first use so that `checkout-partner-sdk/testing` itself never needs it. Synchronous
 * (as `fake.handlers()` is) through Node's `require`, which also loads msw 3's ES modules (Node
 * 22.12+) and hands back the same module instance as an `import` of msw. Elsewhere (a browser with
 * `setupWorker`), `checkout-partner-sdk/testing/msw` imports msw statically instead.
 */
export function loadMsw(): MswFunctions {
  if (msw !== undefined) return msw;
  const hint = "Install it (npm install --save-dev msw), or import fakeCheckoutHandlers from 'checkout-partner-sdk/testing/msw'";
  let load: (() => unknown) | undefined;
  if (typeof __CHECKOUT_SDK_CJS__ === 'boolean' && __CHECKOUT_SDK_CJS__) {
    // The CommonJS build: the module's own require, so a runner's module registry (Jest's) hands
    // back the msw the test file's `require('msw/node')` gets.
    load = () => __CHECKOUT_SDK_REQUIRE__('msw');
  }
  // a separate `if` (not an `else`), so esbuild drops it from the CommonJS build
  if (!(typeof __CHECKOUT_SDK_CJS__ === 'boolean' && __CHECKOUT_SDK_CJS__)) {
    const createRequire = globalThis.process?.getBuiltinModule?.('node:module')?.createRequire;
    if (createRequire !== undefined) load = () => createRequire(import.meta.url)('msw');
  }
  if (load === undefined) {
    throw new MissingPeerDependencyError(
      'msw',
      `fake.handlers() loads msw through Node's require, which this runtime lacks. Import fakeCheckoutHandlers from 'checkout-partner-sdk/testing/msw' instead.`,
    );
  }
  try {
    msw = load() as MswFunctions;
  } catch (error) {
    throw new MissingPeerDependencyError('msw', mswLoadFailure(error, hint), { cause: error });
  }
  return msw;
}

/** Why msw could not be loaded, from the error loading it threw, and what to do. */
function mswLoadFailure(error: unknown, hint: string): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? (message.split('\n')[0] ?? message) : String(error);
  if (code === 'MODULE_NOT_FOUND' && text.includes("'msw'")) {
    return `fake.handlers() needs the optional peer dependency msw, which is not installed. ${hint}.`;
  }
  if (code === 'ERR_REQUIRE_ESM' || /Must use import to load ES Module|require\(\) of ES Module/.test(text)) {
    // msw is installed: it (msw 3), or a module it imports (msw 2.13+), is an ES module, and this
    // `require` cannot load one: Jest's, below Node 24.9 or without --experimental-vm-modules
    return (
      `fake.handlers() found msw but cannot load it: msw (or a module it imports) is an ES module, and this runtime's require cannot load ES modules (${text}). ` +
      "Import fakeCheckoutHandlers from 'checkout-partner-sdk/testing/msw' instead (it loads msw with import), or, under Jest, run it on Node 24.9+ with " +
      'NODE_OPTIONS=--experimental-vm-modules (Jest 30.4+ then requires ES modules), or serve the fake over HTTP with fake.listen(). See docs/testing.md (Jest).'
    );
  }
  return `fake.handlers() could not load msw (${typeof code === 'string' ? `${code}: ` : ''}${text}). ${hint}.`;
}
