import { describePartnerRoutes } from './partner-routes-contract.js';

describePartnerRoutes('real server on 127.0.0.1', async (fake) => {
  const server = await fake.listen();
  return { baseUrl: server.url, fetch: globalThis.fetch, stop: () => server.close() };
});
