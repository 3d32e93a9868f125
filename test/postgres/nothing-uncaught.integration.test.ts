import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore, PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { createWebhookHandler, signPayload, type WebhookHandler } from 'checkout-partner-sdk/webhooks';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueTable } from './drivers.js';

// Issue 23, "nothing uncaught": an uncaughtException `terminating connection due to administrator
// command` (57P01) once killed a test whose pg Pool had no 'error' listener, PostgreSQL being
// stopped after pool.end() resolved. The client that emitted it was one of the pool's idle clients:
// pg-pool's end() resolves as soon as it has asked its idle clients to end, without waiting for
// their sockets to close, and an idle client re-emits its session's end on the pool ('error'),
// which throws when nobody listens. A client the SDK has checked out keeps the SDK's listener
// for its whole life there, so the SDK's own clients never reach the pool's 'error'.

const SECRET = 'whsec-test';
const client = new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 's-1' });

async function deliver(handler: WebhookHandler, event: object): Promise<number> {
  const body = JSON.stringify(event);
  const request = new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provider-signature': await signPayload(body, SECRET) },
    body,
  });
  return (await handler.handle(request)).status;
}

let server: PostgresServer;
let admin: pg.Pool;
beforeAll(async () => {
  server = await startPostgres();
  admin = new pg.Pool({ connectionString: server.url, max: 2 });
  admin.on('error', () => undefined);
});
afterAll(async () => {
  await admin?.end();
  await server?.stop();
});

const backends = async (applicationName: string) =>
  (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName])).rows.map(
    (row) => row.pid,
  );
const terminate = async (pids: number[]) => {
  for (const pid of pids) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
};

it("backends terminated under the SDK's checked-out clients (inside onEvent and onChange transactions): nothing reaches the pool's 'error'", async () => {
  const applicationName = `held_${process.pid}`;
  const pool = new pg.Pool({ connectionString: server.url, max: 8, application_name: applicationName });
  const poolErrors: Error[] = [];
  // recorded, not needed: with no listener each of these would be an uncaught exception
  pool.on('error', (error) => poolErrors.push(error));
  try {
    const events = new PostgresEventStore({ pool, table: uniqueTable(), transactional: true });
    const records = new PostgresStatusStore({ pool, table: uniqueTable(), transactional: true });
    await events.ensureSchema();
    await records.ensureSchema();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held: number[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      client,
      logger: false,
      store: events,
      onEvent: async ({ transaction }) => {
        held.push((await transaction.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
        await gate; // idle inside its transaction, no statement running, when its backend ends
      },
    });
    const deliveries = [0, 1, 2].map((i) => deliver(handler, { eventId: `evt-${i}`, type: 'otc.trade.settled' }));
    for (const id of ['o-1', 'o-2']) await records.watch('order', id);
    const claimed = await records.claimDue({ limit: 2, leaseMs: 30_000, owner: 'a' });
    const turns = claimed.map((record) =>
      records
        .transact(record.lease, 'Settled', { failures: 0, next: { end: 'final' } }, async (transaction) => {
          held.push((await transaction.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
          await gate;
        })
        .then(
          () => 'committed',
          (error: unknown) => (error as Error).name,
        ),
    );
    expect(await eventually(async () => held.length === 5, 10_000)).toBe(true);
    await terminate(held); // only the sessions the SDK holds: the pool's idle ones are the next test's
    // every session's end reached its client (each destroyed by the SDK, so out of the pool: no
    // client is checked out any more) before onEvent and onChange resume
    expect(await eventually(async () => pool.totalCount === pool.idleCount, 10_000)).toBe(true);
    release();
    expect(await Promise.all(deliveries)).toEqual([503, 503, 503]);
    expect(await Promise.all(turns)).toEqual(['PostgresStoreError', 'PostgresStoreError']);
    expect(poolErrors).toEqual([]);
    // and the stores work on through new connections
    expect(await deliver(handler, { eventId: 'evt-0', type: 'otc.trade.settled' })).toBe(200);
  } finally {
    await pool.end();
  }
});

it("the pool's idle clients: pool.end() resolves before their sessions close, and a session ended then is emitted on the pool (attach pool.on('error'))", async () => {
  const applicationName = `idle_${process.pid}`;
  // a proxy that can hold what the clients send (their Terminate) while PostgreSQL's answers flow:
  // the window a loaded machine opens between pool.end() resolving and the backends exiting
  const upstream: { inbound: Socket; outbound: Socket; held: Buffer[] }[] = [];
  let holding = false;
  const proxy = createServer({ allowHalfOpen: true }, (inbound) => {
    const outbound = connect(server.port, '127.0.0.1');
    const pair = { inbound, outbound, held: [] as Buffer[] };
    upstream.push(pair);
    inbound.on('error', () => undefined);
    outbound.on('error', () => undefined);
    inbound.on('data', (chunk: Buffer) => (holding ? pair.held.push(chunk) : outbound.write(chunk)));
    inbound.on('end', () => (holding ? undefined : outbound.end()));
    outbound.on('data', (chunk: Buffer) => inbound.write(chunk));
    outbound.on('close', () => inbound.destroy());
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const url = server.url.replace(`:${server.port}/`, `:${(proxy.address() as AddressInfo).port}/`);
  const pool = new pg.Pool({ connectionString: url, max: 4, application_name: applicationName });
  const poolErrors: Error[] = [];
  pool.on('error', (error) => poolErrors.push(error));
  try {
    const store = new PostgresEventStore({ pool, table: uniqueTable(), transactional: true });
    await store.ensureSchema();
    const handler = createWebhookHandler({ secret: SECRET, client, logger: false, store, onEvent: async () => undefined });
    expect(await Promise.all([0, 1, 2].map((i) => deliver(handler, { eventId: `evt-${i}`, type: 'otc.trade.settled' })))).toEqual([
      200, 200, 200,
    ]);
    // every client back in the pool (the store's background purge included): what follows is about idle clients only
    expect(await eventually(async () => pool.idleCount > 0 && pool.idleCount === pool.totalCount, 10_000)).toBe(true);

    holding = true;
    await pool.end(); // resolved: the idle clients were asked to end, their sessions are still open
    const open = await backends(applicationName);
    expect(open.length).toBeGreaterThan(0);
    expect(poolErrors).toEqual([]);
    await terminate(open); // as `pg_ctl stop -m fast` does to every session
    expect(await eventually(async () => poolErrors.length > 0, 10_000)).toBe(true);
    expect(poolErrors[0]!.message).toBe('terminating connection due to administrator command');
    expect((poolErrors[0] as Error & { code?: string }).code).toBe('57P01');
  } finally {
    holding = false;
    for (const pair of upstream) {
      pair.inbound.destroy();
      pair.outbound.destroy();
    }
    proxy.close();
  }
});
