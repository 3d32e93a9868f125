// What `bench/profile.mjs` profiles: sequential status reads through the SDK (or raw fetch with
// --raw, or ky alone with the SDK's options with --ky) against the local server (or, with --stub,
// an in-process fetch), for a fixed number of requests.
import { CheckoutClient } from 'checkout-partner-sdk';
import ky from 'ky';
import { kyAloneOptions } from '../lib/ky-alone.mjs';
import { startServer } from '../lib/server.mjs';
import { flag } from '../lib/measure.mjs';

const requests = Number(flag('requests', 20_000));
const server = await startServer();
try {
  // --stub: no I/O; every variant's fetch answers in-process with the server's own bodies (each
  // layer's own work, steadier than the network figures)
  const stub = flag('stub', false) ? await stubOf(server.url) : undefined;
  const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-profile', partnerSecret: 's-profile', fetch: stub });
  const token = await client.getAccessToken();
  const url = `${server.url}/api/v1/partner-api/orders/by-external-id/o-1`;
  const headers = { authorization: `Bearer ${token}`, 'user-agent': 'checkout-partner-sdk/0.0.0' };
  const kyRead = async () => JSON.parse(await (await ky(url, kyAloneOptions(headers, stub))).text());
  const fetchOf = stub ?? fetch;
  const rawRead = async () => (await fetchOf(url, { headers: { authorization: `Bearer ${token}` } })).json();
  const read = flag('raw', false) ? rawRead : flag('ky', false) ? kyRead : () => client.getOrderByExternalId('o-1');
  let left = requests;
  const loop = async () => {
    while (left-- > 0) await read();
  };
  await Promise.all(Array.from({ length: Number(flag('concurrency', 1)) }, loop));
} finally {
  await server.close();
}

/** A fetch answering in-process with the bodies (and their lengths) the server sends. */
async function stubOf(base) {
  const api = `${base}/api/v1/partner-api`;
  const token = await (
    await fetch(`${api}/auth/token`, { method: 'POST', headers: { 'x-partner-id': 'p-profile', 'x-partner-secret': 's-profile' } })
  ).text();
  const bearer = { authorization: `Bearer ${JSON.parse(token).accessToken}` };
  const order = await (await fetch(`${api}/orders/by-external-id/o-1`, { headers: bearer })).text();
  return async (input) => {
    const body = String(typeof input === 'string' ? input : input.url).endsWith('/auth/token') ? token : order;
    return new Response(body, { headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } });
  };
}
