/**
 * `checkout-partner-sdk/testing/msw`: the fake as msw handlers, for `setupServer` or `setupWorker`.
 * This entry imports msw (2 or 3, an optional peer dependency); `checkout-partner-sdk/testing` does not.
 */
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { FakeCheckout } from './fake-checkout.js';
import { buildMswHandlers } from './msw-handlers.js';

/** The handlers of `fake.handlers(baseUrl)` through a static import of msw, for where that cannot load msw (browsers). */
export function fakeCheckoutHandlers(fake: FakeCheckout, baseUrl: string): HttpHandler[] {
  return buildMswHandlers({ http, HttpResponse }, fake, baseUrl);
}
