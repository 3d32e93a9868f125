import { loadMsw } from './load-msw.js';
import { buildMswHandlers } from './msw-handlers.js';
import { FakeCheckoutCore, type FakeCheckoutOptions } from './service.js';

/** An msw handler as `fake.handlers()` returns it; for msw's own `HttpHandler` type, use `checkout-partner-sdk/testing/msw`. */
// any: this entry names no msw type (msw 3's fail under node10), and msw's private members let only any spread into setupServer()
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FakeMswHandler = any;

/**
 * An in-memory checkout service: the token exchange, Bearer-checked status reads and their errors, with records the
 * test sets and advances. Served as `fetch`, as msw handlers (`handlers()`) or as a local server (`listen()`).
 */
export class FakeCheckout extends FakeCheckoutCore {
  /**
   * msw handlers serving the fake under `baseUrl` (the partner API path appended unless there), for `setupServer`.
   * Loads msw at the first call; a {@link MissingPeerDependencyError} when it cannot. In a browser, use `testing/msw`.
   *
   * @example
   * const server = setupServer(...fake.handlers('https://checkout.test'));
   */
  handlers(baseUrl: string): FakeMswHandler[] {
    return buildMswHandlers(loadMsw(), this, baseUrl);
  }
}

/** Makes a fake checkout service; see {@link FakeCheckout}. */
export function createFakeCheckout(options: FakeCheckoutOptions = {}): FakeCheckout {
  return new FakeCheckout(options);
}
