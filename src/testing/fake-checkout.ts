import { loadMsw } from './load-msw.js';
import { buildMswHandlers } from './msw-handlers.js';
import { FakeCheckoutCore, type FakeCheckoutOptions } from './service.js';

/**
 * An msw request handler as `fake.handlers()` returns it (msw's `HttpHandler` at run time), for
 * `setupServer`, `setupWorker`, `server.use` and `server.resetHandlers`. Typed `any` so that this
 * entry's declarations never load msw's: msw is an optional peer, and msw 3's own declarations do
 * not resolve under `module: commonjs` (node10 resolution), which would break the compile of a
 * project that only imports `checkout-partner-sdk/testing`. For msw's own `HttpHandler[]` type,
 * use `fakeCheckoutHandlers` from `checkout-partner-sdk/testing/msw`.
 */
// any, not unknown: msw's handler classes have private members, so no structural type (and not
// unknown) spreads into setupServer(...); any does, in every msw version
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FakeMswHandler = any;

/**
 * An in-memory checkout service that behaves as the spec says: the token exchange with its four
 * 401 causes, HS256 JWT access tokens (a random key per fake) checked on every business call, the
 * three status GETs with their 404s, and partner headers refused on business endpoints. One
 * implementation (`fake.fetch`) served as msw handlers (`handlers()`) or a real
 * local server (`listen()`). Its records (orders, ...) are set and advanced by the test.
 */
export class FakeCheckout extends FakeCheckoutCore {
  /**
   * msw handlers serving the fake under `baseUrl` (the partner API path is appended unless there),
   * for `setupServer` from 'msw/node'. Loads the optional peer dependency msw (2 or 3) on the first
   * call and throws a {@link MissingPeerDependencyError} saying to install it when it is missing.
   * In a browser, use `fakeCheckoutHandlers` from `checkout-partner-sdk/testing/msw` (typed
   * with msw's own `HttpHandler[]`).
   *
   * @example
   * const server = setupServer(...fake.handlers('https://checkout.test'));
   * server.listen();
   */
  handlers(baseUrl: string): FakeMswHandler[] {
    return buildMswHandlers(loadMsw(), this, baseUrl);
  }
}

/**
 * Makes a fake checkout service; see {@link FakeCheckout}.
 *
 * @example
 * const fake = createFakeCheckout({ partners: [{ partnerId: 'p-1', partnerSecret: 's-1' }], tokenTtlSeconds: 3600 });
 * fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
 * const { url, close } = await fake.listen();
 */
export function createFakeCheckout(options: FakeCheckoutOptions = {}): FakeCheckout {
  return new FakeCheckout(options);
}
