// Part 1: what one status read costs the client, against raw fetch + res.json() (the limit), ky
// alone with the SDK's options (the transport's own cost, which the SDK should add little to) and
// the peers' equivalent reads, all against the same local server (a separate process).
// Per variant: client CPU per request (process.cpuUsage) and requests per second, sequential and
// at 64 concurrent, interleaved rounds, medians.
import { CheckoutClient } from 'checkout-partner-sdk';
import ky from 'ky';
import OpenAI from 'openai';
import Stripe from 'stripe';
import { startServer } from '../lib/server.mjs';
import { kyAloneOptions } from '../lib/ky-alone.mjs';
import { flag, interleave, pairedRatio, report } from '../lib/measure.mjs';

const quick = flag('quick', false);
const only = flag('only', undefined)?.split(',');
const server = await startServer();
const base = server.url;

const sdk = new CheckoutClient({ baseUrl: base, partnerId: 'p-reads', partnerSecret: 's-reads' });
const token = await sdk.getAccessToken();
const orderUrl = `${base}/api/v1/partner-api/orders/by-external-id/o-1`;
const openai = new OpenAI({ apiKey: 'sk-bench', baseURL: `${base}/v1` });
const stripe = new Stripe('sk_test_bench', { host: '127.0.0.1', port: Number(new URL(base).port), protocol: 'http' });

const kyHeaders = { authorization: `Bearer ${token}`, 'user-agent': `checkout-partner-sdk/0.0.0 node/${process.versions.node}` };

const all = {
  'raw fetch': async () => {
    const res = await fetch(orderUrl, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.json();
    if (body.externalId !== 'o-1') throw new Error('raw fetch: unexpected body');
  },
  'ky alone': async () => {
    const res = await ky(orderUrl, kyAloneOptions(kyHeaders));
    const body = JSON.parse(await res.text());
    if (body.externalId !== 'o-1') throw new Error('ky: unexpected body');
  },
  sdk: async () => {
    const order = await sdk.getOrderByExternalId('o-1');
    if (order.externalId !== 'o-1') throw new Error('sdk: unexpected body');
  },
  openai: async () => {
    const model = await openai.models.retrieve('gpt-bench');
    if (model.id !== 'gpt-bench') throw new Error('openai: unexpected body');
  },
  stripe: async () => {
    const customer = await stripe.customers.retrieve('cus_bench');
    if (customer.id !== 'cus_bench') throw new Error('stripe: unexpected body');
  },
};
const variants = only ? Object.fromEntries(only.map((name) => [name, all[name]])) : all;

const seqOps = quick ? 300 : 600;
const concOps = quick ? 1280 : 2400;
// 31 rounds: on a shared 2-core VM one run's paired ratio swung by ±0.3 with 7 rounds, and the
// SDK's against ky alone still by ±0.07 from run to run with 21
const rounds = quick ? 4 : Number(flag('rounds', 31));

const sequential = async (call) => {
  for (let i = 0; i < seqOps; i++) await call();
  return seqOps;
};
const concurrent = async (call) => {
  let left = concOps;
  const worker = async () => {
    while (left-- > 0) await call();
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  return concOps;
};

try {
  // 3 warm-up rounds: a process's CPU per read keeps falling for its first several thousand reads
  // (the JIT, undici's pool), and a round measured on that slope says more about its place in the
  // order than about its variant
  const seq = await interleave(variants, { rounds, batch: sequential, warmup: 3 });
  const conc = await interleave(variants, { rounds, batch: concurrent, warmup: 3 });
  const summary = (results) =>
    Object.fromEntries(
      Object.entries(results).map(([name, r]) => [
        name,
        {
          cpuUsPerRequest: r.cpuUsPerOp,
          requestsPerSecond: r.opsPerSec,
          cpuVsRawFetch: results['raw fetch'] ? pairedRatio(results, name, 'raw fetch', 'cpuPerOp') : undefined,
          throughputVsRawFetch: results['raw fetch'] ? pairedRatio(results, name, 'raw fetch', 'opsPerSecSamples') : undefined,
          cpuVsKy: results['ky alone'] ? pairedRatio(results, name, 'ky alone', 'cpuPerOp') : undefined,
        },
      ]),
    );
  report({ sequential: summary(seq), concurrent64: summary(conc), rounds, seqOps, concOps });
} finally {
  await server.close();
}
