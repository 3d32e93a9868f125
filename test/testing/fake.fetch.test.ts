import { describeFakeContract } from './fake-contract.js';

describeFakeContract('fetch function', async (fake) => ({
  baseUrl: 'https://checkout.test',
  fetch: fake.fetch,
  clientFetch: fake.fetch,
  stop: () => undefined,
}));
