import { setupServer } from 'msw/node';
import { describeFakeContract } from './fake-contract.js';

describeFakeContract('msw handlers', async (fake) => {
  const baseUrl = 'https://checkout.test';
  const server = setupServer(...fake.handlers(baseUrl));
  server.listen({ onUnhandledFrame: 'error' });
  return { baseUrl, fetch: globalThis.fetch, stop: () => server.close() };
});
