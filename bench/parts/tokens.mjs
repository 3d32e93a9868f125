// Part 2: token exchanges. (a) 10,000 concurrent cold getAccessToken() calls share one exchange.
// (b) Continuous reads for `--token-seconds` (default 30) against a server that issues 3-second
// tokens: exchanges should equal the lifetimes that passed (±1). Three clients run side by side:
//   opaque token, expiresIn 3, tokenSkewSeconds: 0 → one exchange per 3 s lifetime
//   JWT whose exp is 3 s ahead (rounded up to a whole second, so 3-4 s) while expiresIn says 3600,
//     tokenSkewSeconds: 0 → one exchange per exp lifetime (the client must honour exp)
//   opaque token, expiresIn 3, default skew (30 s, capped at half the lifetime) → one per 1.5 s
// Expected = ceil(run length / reused part of the mean lifetime the server issued). The server
// answers 401 to an expired token: `rejected401` counts those (each would cost an extra exchange).
// `refreshLagMs` is when each new token was fetched relative to the previous one's reuse deadline
// (median, min, max): near 0 means reused to the end of its window, never past it.
import { CheckoutClient } from 'checkout-partner-sdk';
import { startServer } from '../lib/server.mjs';
import { flag, median, report } from '../lib/measure.mjs';

const seconds = Number(flag('token-seconds', 30));
const coldCallers = Number(flag('cold-callers', 10_000));
const server = await startServer();
const baseUrl = server.url;

try {
  // (a) cold stampede
  const cold = new CheckoutClient({ baseUrl, partnerId: 'cold-1', partnerSecret: 's' });
  const t0 = performance.now();
  const tokens = await Promise.all(Array.from({ length: coldCallers }, () => cold.getAccessToken()));
  const coldMs = performance.now() - t0;
  const distinct = new Set(tokens).size;
  const coldStats = await server.stats('cold-1');

  // (b) 3-second tokens under continuous reads
  const clients = [
    { name: 'opaque, expiresIn 3, skew 0', partnerId: 'ttl3-opaque', skew: 0, reuse: 1 },
    { name: 'JWT exp +3 s (expiresIn 3600), skew 0', partnerId: 'jwt3', skew: 0, reuse: 1 },
    { name: 'opaque, expiresIn 3, default skew (capped at 1.5 s)', partnerId: 'ttl3-default', skew: undefined, reuse: 0.5 },
  ];
  const deadline = performance.now() + seconds * 1000;
  let reads = 0;
  let failures = 0;
  const loops = clients.map(async (c) => {
    const client = new CheckoutClient({ baseUrl, partnerId: c.partnerId, partnerSecret: 's', tokenSkewSeconds: c.skew });
    // 4 readers per client, sequential each: continuous reads without saturating the machine
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (performance.now() < deadline) {
          try {
            await client.getOrderByExternalId('o-1');
            reads++;
          } catch {
            failures++;
          }
        }
      }),
    );
  });
  const started = performance.now();
  await Promise.all(loops);
  const elapsedSeconds = (performance.now() - started) / 1000;
  const lifetimes = [];
  for (const c of clients) {
    const s = await server.stats(c.partnerId);
    const meanLifetimeMs = s.lifetimesMs.reduce((a, b) => a + b, 0) / s.lifetimesMs.length;
    // lifetimes that began within the run: one at the start, then one each time the last ran out
    const expected = Math.ceil((seconds * 1000) / (meanLifetimeMs * c.reuse));
    const lags = s.issuedAt.slice(1).map((at, i) => at - (s.issuedAt[i] + s.lifetimesMs[i] * c.reuse));
    lifetimes.push({
      client: c.name,
      exchanges: s.exchanges,
      expected,
      withinOne: Math.abs(s.exchanges - expected) <= 1,
      meanLifetimeMs: Math.round(meanLifetimeMs),
      rejected401: s.rejected,
      refreshLagMs: lags.length === 0 ? null : { median: median(lags), min: Math.min(...lags), max: Math.max(...lags) },
    });
  }
  report({
    cold: { callers: coldCallers, exchanges: coldStats.exchanges, distinctTokens: distinct, ms: coldMs },
    lifetimes: { seconds: elapsedSeconds, tokenLifetimeSeconds: 3, reads, failures, clients: lifetimes },
  });
} finally {
  await server.close();
}
