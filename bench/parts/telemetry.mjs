// Part 1c: what OpenTelemetry costs a status read, without I/O (`fetch` is an in-process function, as
// in overhead.mjs): the same read with nothing registered (the no-op path: `@opentelemetry/api` is
// installed, no provider; nothing is created per call), and with the real OpenTelemetry JS SDK given
// as `tracerProvider` and `meterProvider` (a span per read and the duration histogram; spans go to
// a processor that drops them, so only the SDK's own work is counted). `--compare` adds the same read
// from another build (e.g. main's dist, built before telemetry) for the no-op path against it:
//   node bench/parts/telemetry.mjs [--rounds=21] [--compare=path/to/other/dist/index.js]
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { pathToFileURL } from 'node:url';
import { flag, interleave, pairedRatio, report } from '../lib/measure.mjs';

const { CheckoutClient } = await import('checkout-partner-sdk');
const comparePath = flag('compare', undefined);
const Other = comparePath ? (await import(pathToFileURL(comparePath).href)).CheckoutClient : undefined;

// as the OpenTelemetry Node SDK does: the context manager is global whatever the providers
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const dropped = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined, forceFlush: async () => undefined };
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: dropped })] });
class Never extends MetricReader {
  onShutdown() {
    return Promise.resolve();
  }
  onForceFlush() {
    return Promise.resolve();
  }
}
const meterProvider = new MeterProvider({ readers: [new Never()] });

const body = JSON.stringify({
  externalId: 'o-1',
  currency: 'USDT',
  settlement: { status: 'Settled', tradeId: 't-1' },
  amount: '125.40',
  createdAt: '2026-01-01T00:00:00.000Z',
});
const token = JSON.stringify({ accessToken: 'tok-telemetry', tokenType: 'Bearer', expiresIn: 3600 });
const stub = async (input) => {
  const url = typeof input === 'string' ? input : input.url;
  return new Response(url.endsWith('/auth/token') ? token : body, { headers: { 'content-type': 'application/json' } });
};
const options = { baseUrl: 'https://checkout.example.com', partnerId: 'p', partnerSecret: 's', fetch: stub };
const off = new CheckoutClient(options);
const on = new CheckoutClient({ ...options, tracerProvider, meterProvider });
const other = Other && new Other(options);
for (const client of [off, on, other]) await client?.getAccessToken();
await on.getOrderByExternalId('o-1'); // loads the telemetry implementation once

const variants = {
  'no provider registered': () => off.getOrderByExternalId('o-1'),
  'SDK tracer + meter providers': () => on.getOrderByExternalId('o-1'),
  ...(other && { [`no provider, build ${comparePath}`]: () => other.getOrderByExternalId('o-1') }),
};
const ops = 2_000;
const results = await interleave(variants, {
  rounds: Number(flag('rounds', 21)),
  warmup: 2,
  batch: async (call) => {
    for (let i = 0; i < ops; i++) await call();
    return ops;
  },
});
const base = 'no provider registered';
const summary = Object.fromEntries(
  Object.entries(results).map(([name, r]) => [
    name,
    { cpuUsPerCall: r.cpuUsPerOp, vsNoProvider: pairedRatio(results, name, base, 'cpuPerOp') },
  ]),
);
if (other) summary[base].vsCompare = pairedRatio(results, base, `no provider, build ${comparePath}`, 'cpuPerOp');
report(summary);
