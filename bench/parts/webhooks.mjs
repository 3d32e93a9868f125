// Part 3: webhooks.
// (a) Verifying a 1 KiB payload's signature, operations per second, interleaved rounds:
//     node:crypto createHmac over a pre-made KeyObject + timingSafeEqual (the limit), the SDK's
//     verifySignature (Node build, what `checkout-partner-sdk/webhooks` loads on Node), the SDK's
//     Web Crypto build (what other runtimes load, for information) and the `standardwebhooks`
//     package's Webhook.verify (pure-JS SHA-256; its scheme also signs an id and a timestamp).
// (b) Deliveries per second through handler.handle(Request): signature, parse, claim, a confirming
//     status read served by the local server (a separate process), onEvent, complete. With the
//     MemoryEventStore, with RedisEventStore (a throwaway redis-server) and with a transactional
//     PostgresEventStore (a throwaway PostgreSQL, pg Pool: BEGIN, row lock, onEvent, mark done,
//     COMMIT per delivery), sequential and 16 at once.
import { createHmac, createSecretKey, randomUUID, timingSafeEqual } from 'node:crypto';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, signPayload, verifySignature } from 'checkout-partner-sdk/webhooks';
import { Webhook } from 'standardwebhooks';
import { startRedis } from '../lib/redis.mjs';
// the tests' own server helper (Node strips its types): initdb + pg_ctl in a temp dir, loopback only
import { startPostgres } from '../../test/helpers/postgres-server.ts';
import { startServer } from '../lib/server.mjs';
import { flag, interleave, pairedRatio, report } from '../lib/measure.mjs';

const quick = flag('quick', false);
const secret = 'whsec_bench_0123456789abcdef';

// a 1 KiB event body
const event = { eventId: 'evt-0', type: 'otc.trade.settled', tradeId: 't-1', externalId: 'o-1', data: '' };
event.data = 'x'.repeat(1024 - JSON.stringify(event).length);
const payload = JSON.stringify(event);
if (Buffer.byteLength(payload) !== 1024) throw new Error('payload is not 1 KiB');
const signature = await signPayload(payload, secret);

// (a) verification
const key = createSecretKey(Buffer.from(secret, 'utf8'));
const limit = (body, header) => {
  const mac = createHmac('sha256', key).update(body).digest();
  const given = Buffer.from(header.startsWith('sha256=') ? header.slice(7) : header, 'hex');
  return given.length === mac.length && timingSafeEqual(mac, given);
};
let webVerify;
try {
  // the neutral (Web Crypto) build, imported by path: on Node the package name picks the node build
  ({ verifySignature: webVerify } = await import(new URL('../node_modules/checkout-partner-sdk/dist/webhooks.js', import.meta.url)));
} catch {
  webVerify = undefined;
}
const swSecret = `whsec_${Buffer.from(secret).toString('base64')}`;
const sw = new Webhook(swSecret);
const swId = 'msg_bench';
const swTimestamp = new Date();
const swHeaders = {
  'webhook-id': swId,
  'webhook-timestamp': String(Math.floor(swTimestamp.getTime() / 1000)),
  'webhook-signature': sw.sign(swId, swTimestamp, payload),
};

const verifyOps = quick ? 2_000 : 5_000;
const verifiers = {
  'node:crypto (limit)': async () => {
    for (let i = 0; i < verifyOps; i++) if (!limit(payload, signature)) throw new Error('limit: false');
    return verifyOps;
  },
  verifySignature: async () => {
    for (let i = 0; i < verifyOps; i++) if (!(await verifySignature({ payload, signature, secret }))) throw new Error('sdk: false');
    return verifyOps;
  },
  ...(webVerify && {
    'verifySignature (Web Crypto build)': async () => {
      const n = verifyOps / 5; // several times slower: fewer per round
      for (let i = 0; i < n; i++) if (!(await webVerify({ payload, signature, secret }))) throw new Error('web: false');
      return n;
    },
  }),
  standardwebhooks: async () => {
    const n = verifyOps / 10;
    for (let i = 0; i < n; i++) sw.verify(payload, swHeaders, { jsonParse: false });
    return n;
  },
};
const verification = await interleave(verifiers, { rounds: quick ? 5 : 11, batch: (run) => run() });
const verifyTable = Object.fromEntries(
  Object.entries(verification).map(([name, r]) => [
    name,
    {
      opsPerSecond: r.opsPerSec,
      usPerOp: r.wallUsPerOp,
      vsLimit: pairedRatio(verification, name, 'node:crypto (limit)', 'opsPerSecSamples'),
    },
  ]),
);

// (b) deliveries through handle(Request)
const server = await startServer();
const redis = await startRedis();
const postgres = await startPostgres().catch((error) => ({ error: error.message.split('\n')[0] }));
process.once('SIGTERM', () => {
  // stopped by the runner's time limit: do not leave redis-server or PostgreSQL behind
  if (redis.pid) process.kill(redis.pid, 'SIGTERM');
  void (postgres.stop?.() ?? Promise.resolve()).finally(() => process.exit(1));
});
let ioredis;
let redisNote;
let pgPool;
let postgresNote;
try {
  const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-webhooks', partnerSecret: 's' });
  await client.getAccessToken();
  const makeHandler = (store) => {
    let handled = 0;
    let confirmed = 0;
    const handler = createWebhookHandler({
      secret,
      client,
      store,
      resolveOrderExternalId: (e) => e.externalId,
      onEvent: async (ctx) => {
        handled++;
        if (ctx.confirmed) confirmed++;
      },
    });
    return { handler, counts: () => ({ handled, confirmed }) };
  };
  const handlers = { 'handle(), MemoryEventStore': makeHandler(new MemoryEventStore()) };
  if (redis.error === undefined) {
    const { RedisEventStore } = await import('checkout-partner-sdk/redis').catch((error) => ({ error }));
    if (RedisEventStore === undefined) {
      redisNote = 'checkout-partner-sdk/redis has no RedisEventStore yet';
    } else {
      const { default: Redis } = await import('ioredis');
      ioredis = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: false });
      await ioredis.ping();
      handlers['handle(), RedisEventStore (ioredis)'] = makeHandler(
        new RedisEventStore({ client: ioredis, prefix: `bench:${randomUUID()}:` }),
      );
    }
  } else {
    redisNote = redis.error;
  }
  if (postgres.error === undefined) {
    const { PostgresEventStore } = await import('checkout-partner-sdk/postgres');
    const { default: pg } = await import('pg');
    pgPool = new pg.Pool({ connectionString: postgres.url, max: 20 });
    pgPool.on('error', () => undefined);
    const store = new PostgresEventStore({ pool: pgPool, transactional: true });
    await store.ensureSchema();
    handlers['handle(), PostgresEventStore (pg, transactional)'] = makeHandler(store);
  } else {
    postgresNote = postgres.error;
  }
  const url = 'http://127.0.0.1/webhooks';
  const delivery = async () => {
    const body = JSON.stringify({ ...event, eventId: randomUUID() });
    const sig = await signPayload(body, secret);
    return () => new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provider-signature': sig }, body });
  };
  const statuses = new Map();
  const deliver = async (h, makeRequest) => {
    const res = await h.handler.handle(makeRequest());
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (res.status !== 200) throw new Error(`delivery answered ${res.status}`);
  };
  const perRound = quick ? 200 : 300;
  const sequential = async (h) => {
    const requests = await Promise.all(Array.from({ length: perRound }, delivery));
    for (const r of requests) await deliver(h, r);
    return perRound;
  };
  const concurrent = async (h) => {
    const requests = await Promise.all(Array.from({ length: perRound }, delivery));
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < requests.length) await deliver(h, requests[next++]);
      }),
    );
    return perRound;
  };
  const rounds = quick ? 3 : 5;
  const seq = await interleave(handlers, { rounds, batch: sequential });
  const conc = await interleave(handlers, { rounds, batch: concurrent });
  const deliveries = Object.fromEntries(
    Object.keys(handlers).map((name) => [
      name,
      {
        sequentialPerSecond: seq[name].opsPerSec,
        concurrent16PerSecond: conc[name].opsPerSec,
        cpuUsPerDelivery: seq[name].cpuUsPerOp,
        ...handlers[name].counts(),
      },
    ]),
  );
  report({
    payloadBytes: 1024,
    verification: verifyTable,
    deliveries,
    statuses: Object.fromEntries(statuses),
    redis: redisNote ?? 'ok',
    postgres: postgresNote ?? 'ok',
  });
} finally {
  await ioredis?.quit().catch(() => undefined);
  await pgPool?.end().catch(() => undefined);
  await postgres.stop?.();
  if (redis.stop) await redis.stop();
  await server.close();
}
