// Part 1b: the SDK's own CPU per status read without any I/O: `fetch` is an in-process function
// that answers every request with the same small JSON Response, so what is left is the work of
// each layer. Steadier than the network figures on a noisy machine; run by `bench/run.mjs` with
// the reads part, and by hand to compare builds:
//   node bench/parts/overhead.mjs [--rounds=31] [--compare=path/to/other/dist/index.js]
import ky from 'ky';
import { pathToFileURL } from 'node:url';
import { kyAloneOptions } from '../lib/ky-alone.mjs';
import { flag, interleave, pairedRatio, report } from '../lib/measure.mjs';

const { CheckoutClient, OrderSchema } = await import('checkout-partner-sdk');
const comparePath = flag('compare', undefined);
const Other = comparePath ? (await import(pathToFileURL(comparePath).href)).CheckoutClient : undefined;
const body = JSON.stringify({
  externalId: 'o-1',
  currency: 'USDT',
  settlement: { status: 'Settled', tradeId: 't-1' },
  amount: '125.40',
  createdAt: '2026-01-01T00:00:00.000Z',
});
const token = JSON.stringify({ accessToken: 'tok-overhead', tokenType: 'Bearer', expiresIn: 3600 });
const stub = async (input) => {
  const url = typeof input === 'string' ? input : input.url;
  return new Response(url.endsWith('/auth/token') ? token : body, { headers: { 'content-type': 'application/json' } });
};
const base = 'https://checkout.example.com';
const url = `${base}/api/v1/partner-api/orders/by-external-id/o-1`;
const client = new CheckoutClient({ baseUrl: base, partnerId: 'p', partnerSecret: 's', fetch: stub });
await client.getAccessToken();
const other = Other && new Other({ baseUrl: base, partnerId: 'p', partnerSecret: 's', fetch: stub });
await other?.getAccessToken();
const headers = { authorization: 'Bearer tok-overhead', 'user-agent': `checkout-partner-sdk/0.0.0 node/${process.versions.node}` };

const variants = {
  // what any client does at least: call fetch, read the body, parse it
  'fetch + JSON.parse': async () => JSON.parse(await (await stub(url, { headers })).text()),
  // ky as the SDK configures it, with nothing of the SDK around it
  'ky (SDK options)': async () => JSON.parse(await (await ky(url, kyAloneOptions(headers, stub))).text()),
  'sdk getOrderByExternalId': () => client.getOrderByExternalId('o-1'),
  ...(other && { [`sdk from ${comparePath}`]: () => other.getOrderByExternalId('o-1') }),
  ...(OrderSchema && { 'zod OrderSchema.parse alone': async () => OrderSchema.parse(JSON.parse(body)) }),
};
const ops = 2_000;
const results = await interleave(variants, {
  rounds: Number(flag('rounds', 31)),
  warmup: 2,
  batch: async (call) => {
    for (let i = 0; i < ops; i++) await call();
    return ops;
  },
});
const summary = Object.fromEntries(
  Object.entries(results).map(([name, r]) => [
    name,
    { cpuUsPerCall: r.cpuUsPerOp, vsFetch: pairedRatio(results, name, 'fetch + JSON.parse', 'cpuPerOp') },
  ]),
);
if (other)
  summary['sdk getOrderByExternalId'].vsCompare = pairedRatio(results, 'sdk getOrderByExternalId', `sdk from ${comparePath}`, 'cpuPerOp');
report(summary);
