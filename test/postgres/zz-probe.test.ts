import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import { createWebhookHandler, signPayload, type WebhookHandler, type WebhookLogEntry } from 'checkout-partner-sdk/webhooks';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { keepEntries } from '../helpers/memory-logger.js';
import { uniqueTable } from './drivers.js';

const SECRET = 'whsec-test';
const client = new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 's-1' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function deliver(handler: WebhookHandler, eventId: string): Promise<number> {
  const body = JSON.stringify({ eventId, type: 'otc.trade.settled' });
  const request = new Request('http://127.0.0.1/webhooks', { method: 'POST', headers: { 'x-provider-signature': await signPayload(body, SECRET) }, body });
  return (await handler.handle(request)).status;
}
let server: PostgresServer;
const unhandled: unknown[] = [];
beforeAll(async () => { server = await startPostgres(); process.on('unhandledRejection', (r) => void unhandled.push(r)); });
afterAll(async () => { await server?.stop(); });

it('pg pool ended while transactional deliveries run', async () => {
  const pool = new pg.Pool({ connectionString: server.url, max: 4, connectionTimeoutMillis: 1000 });
  pool.on('error', () => undefined);
  const table = uniqueTable();
  const store = new PostgresEventStore({ pool, table, transactional: true });
  await store.ensureSchema();
  const entries: WebhookLogEntry[] = [];
  const handler = createWebhookHandler({ secret: SECRET, client, store, logger: keepEntries(entries), onEvent: async ({ transaction }) => { await sleep(300); await transaction.query('SELECT 1'); } });
  const running = Array.from({ length: 3 }, (_, i) => deliver(handler, `e-${i}`));
  await sleep(100);
  const ending = pool.end();
  const t0 = Date.now();
  const after = await deliver(handler, 'e-after');
  console.log('after end', after, Date.now() - t0, 'ms');
  console.log('running', await Promise.all(running));
  await ending;
  console.log('drain', await handler.drain({ timeoutMs: 3000 }));
  console.log(entries.map((e) => `${e.outcome} ${e.error?.message ?? ''}`));
  console.log('unhandled', unhandled);
});

it('postgres.js sql ended while plain deliveries run', async () => {
  const sql = postgres(server.url, { max: 4, connect_timeout: 1, onnotice: () => undefined });
  const table = uniqueTable();
  const store = new PostgresEventStore({ pool: sql, table });
  await store.ensureSchema();
  const entries: WebhookLogEntry[] = [];
  const handler = createWebhookHandler({ secret: SECRET, client, store, logger: keepEntries(entries), onEvent: async () => { await sleep(300); } });
  const running = Array.from({ length: 3 }, (_, i) => deliver(handler, `e-${i}`));
  await sleep(100);
  const ending = sql.end({ timeout: 1 });
  const t0 = Date.now();
  const after = await deliver(handler, 'e-after');
  console.log('after end', after, Date.now() - t0, 'ms');
  console.log('running', await Promise.all(running));
  await ending;
  console.log('drain', await handler.drain({ timeoutMs: 3000 }));
  console.log(entries.map((e) => `${e.outcome} ${e.error?.message ?? ''}`));
  console.log('unhandled', unhandled);
});

it('pg plain mode, pool ended mid-onEvent', async () => {
  const pool = new pg.Pool({ connectionString: server.url, max: 4, connectionTimeoutMillis: 1000 });
  pool.on('error', () => undefined);
  const table = uniqueTable();
  const store = new PostgresEventStore({ pool, table });
  await store.ensureSchema();
  const entries: WebhookLogEntry[] = [];
  const handler = createWebhookHandler({ secret: SECRET, client, store, leaseMs: 1000, responseTimeoutMs: 1000, logger: keepEntries(entries), onEvent: async () => { await sleep(300); } });
  const running = Array.from({ length: 3 }, (_, i) => deliver(handler, `e-${i}`));
  await sleep(100);
  const ending = pool.end();
  console.log('running', await Promise.all(running));
  await ending;
  const d = Date.now();
  console.log('drain', await handler.drain({ timeoutMs: 3000 }), Date.now() - d);
  console.log(entries.map((e) => `${e.outcome} ${e.late ? 'late' : ''} ${e.error?.message ?? ''}`));
  console.log('unhandled', unhandled);
});
