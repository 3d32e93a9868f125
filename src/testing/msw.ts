/**
 * `checkout-partner-sdk/testing/msw`: the fake checkout service as msw handlers, for `setupServer`
 * from 'msw/node' or `setupWorker` from 'msw/browser'. This entry imports msw (msw 2 or 3, an
 * optional peer dependency: install it as a dev dependency); `checkout-partner-sdk/testing` does not.
 */
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { FakeCheckout } from './fake-checkout.js';
import { buildMswHandlers } from './msw-handlers.js';

/**
 * msw handlers serving `fake` under `baseUrl` (the partner API path is appended unless there); the
 * same handlers as `fake.handlers(baseUrl)`, through a static import of msw, so they also work where
 * `fake.handlers()` cannot load msw itself (browsers, bundled test runners without `require`).
 *
 * @example
 * import { setupWorker } from 'msw/browser';
 * import { fakeCheckoutHandlers } from 'checkout-partner-sdk/testing/msw';
 *
 * const worker = setupWorker(...fakeCheckoutHandlers(fake, 'https://checkout.test'));
 */
export function fakeCheckoutHandlers(fake: FakeCheckout, baseUrl: string): HttpHandler[] {
  return buildMswHandlers({ http, HttpResponse }, fake, baseUrl);
}
