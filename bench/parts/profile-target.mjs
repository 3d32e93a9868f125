// What `bench/profile.mjs` profiles: sequential status reads through the SDK (or raw fetch with
// --raw) against the local server, for a fixed number of requests.
import { CheckoutClient } from 'checkout-partner-sdk';
import { startServer } from '../lib/server.mjs';
import { flag } from '../lib/measure.mjs';

const requests = Number(flag('requests', 20_000));
const server = await startServer();
try {
  const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-profile', partnerSecret: 's-profile' });
  const token = await client.getAccessToken();
  const url = `${server.url}/api/v1/partner-api/orders/by-external-id/o-1`;
  const read = flag('raw', false)
    ? async () => (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()
    : () => client.getOrderByExternalId('o-1');
  for (let i = 0; i < requests; i++) await read();
} finally {
  await server.close();
}
