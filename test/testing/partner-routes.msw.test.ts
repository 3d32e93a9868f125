import { setupServer } from 'msw/node';
import { fakeCheckoutHandlers } from 'checkout-partner-sdk/testing/msw';
import { describePartnerRoutes } from './partner-routes-contract.js';

describePartnerRoutes('msw handlers', async (fake) => {
  const baseUrl = 'https://checkout.test';
  const server = setupServer(...fake.handlers(baseUrl));
  server.listen({ onUnhandledFrame: 'error' });
  return { baseUrl, fetch: globalThis.fetch, stop: () => server.close() };
});

describePartnerRoutes('msw handlers from checkout-partner-sdk/testing/msw', async (fake) => {
  const baseUrl = 'https://checkout.test';
  const server = setupServer(...fakeCheckoutHandlers(fake, baseUrl));
  server.listen({ onUnhandledFrame: 'error' });
  return { baseUrl, fetch: globalThis.fetch, stop: () => server.close() };
});

describePartnerRoutes('its fetch function', async (fake) => ({
  baseUrl: 'https://checkout.test',
  fetch: fake.fetch,
  clientFetch: fake.fetch,
  stop: () => undefined,
}));
