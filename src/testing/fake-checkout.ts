import type { HttpHandler } from 'msw';
import { loadMsw } from './load-msw.js';
import { buildMswHandlers } from './msw-handlers.js';
import { FakeCheckoutCore, type FakeCheckoutOptions } from './service.js';

/**
 * An in-memory checkout service that behaves as the spec says: the token exchange with its four
 * 401 causes, HS256 JWT access tokens (a random key per fake) checked on every business call, the
 * three status GETs with their 404s, and partner headers refused on business endpoints. One
 * implementation (`fake.fetch`) served as msw handlers (`handlers()`) or a real
 * local server (`listen()`). Orders and withdrawals are set and advanced by the test.
 */
export class FakeCheckout extends FakeCheckoutCore {
  /**
   * msw handlers serving the fake under `baseUrl` (the partner API path is appended unless there),
   * for `setupServer` from 'msw/node'. Loads the optional peer dependency msw (2 or 3) on the first
   * call and throws a {@link MissingPeerDependencyError} saying to install it when it is missing.
   * In a browser, use `fakeCheckoutHandlers` from `checkout-partner-sdk/testing/msw`.
   *
   * @example
   * const server = setupServer(...fake.handlers('https://checkout.test'));
   * server.listen();
   */
  handlers(baseUrl: string): HttpHandler[] {
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
