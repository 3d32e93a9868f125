import { CheckoutError } from '../errors.js';
import type { MswFunctions } from './msw-handlers.js';

/** An optional peer dependency the called feature needs cannot be loaded; the message says what to install or import instead. */
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

// tsup defines it: true in the CommonJS build, false in the ESM build, undefined in tests of the sources
declare const __CHECKOUT_SDK_CJS__: boolean | undefined;
// the CommonJS build's own `require` (named in tsup.config.ts, so no Node types are needed)
declare const __CHECKOUT_SDK_REQUIRE__: (id: string) => unknown;

/** msw, loaded at first use with Node's `require`: synchronous, as `fake.handlers()` is, and the instance an `import` gets. */
export function loadMsw(): MswFunctions {
  if (msw !== undefined) return msw;
  const hint = "Install it (npm install --save-dev msw), or import fakeCheckoutHandlers from 'checkout-partner-sdk/testing/msw'";
  let load: (() => unknown) | undefined;
  if (typeof __CHECKOUT_SDK_CJS__ === 'boolean' && __CHECKOUT_SDK_CJS__) {
    // the module's own require, so a runner's registry (Jest's) gives the msw the test's `require('msw/node')` gets
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

function mswLoadFailure(error: unknown, hint: string): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? (message.split('\n')[0] ?? message) : String(error);
  if (code === 'MODULE_NOT_FOUND' && text.includes("'msw'")) {
    return `fake.handlers() needs the optional peer dependency msw, which is not installed. ${hint}.`;
  }
  if (code === 'ERR_REQUIRE_ESM' || /Must use import to load ES Module|require\(\) of ES Module/.test(text)) {
    return (
      `fake.handlers() found msw but cannot load it: msw (or a module it imports) is an ES module, and this runtime's require cannot load ES modules (${text}). ` +
      "Import fakeCheckoutHandlers from 'checkout-partner-sdk/testing/msw' instead (it loads msw with import), or, under Jest, run it on Node 24.9+ with " +
      'NODE_OPTIONS=--experimental-vm-modules (Jest 30.4+ then requires ES modules), or serve the fake over HTTP with fake.listen(). See docs/testing-jest.md.'
    );
  }
  return `fake.handlers() could not load msw (${typeof code === 'string' ? `${code}: ` : ''}${text}). ${hint}.`;
}
