import { setupServer } from 'msw/node';
import { fakeCheckoutHandlers } from 'checkout-partner-sdk/testing/msw';
import { describeFakeContract } from './fake-contract.js';

describeFakeContract('msw handlers', async (fake) => {
  const baseUrl = 'https://checkout.test';
  const server = setupServer(...fake.handlers(baseUrl));
  server.listen({ onUnhandledFrame: 'error' });
  return { baseUrl, fetch: globalThis.fetch, stop: () => server.close() };
});

describeFakeContract('msw handlers from checkout-partner-sdk/testing/msw', async (fake) => {
  const baseUrl = 'https://checkout.test';
  const server = setupServer(...fakeCheckoutHandlers(fake, baseUrl));
  server.listen({ onUnhandledFrame: 'error' });
  return { baseUrl, fetch: globalThis.fetch, stop: () => server.close() };
});
