import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { signPayload } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWorkerApp } from '../../examples/webhooks/cloudflare-worker.js';
import { createApp as createExpressApp } from '../../examples/webhooks/express.js';
import { createApp as createFastifyApp } from '../../examples/webhooks/fastify.js';
import { createApp as createHonoApp } from '../../examples/webhooks/hono.js';
import { createApp as createKoaApp } from '../../examples/webhooks/koa.js';
import { createApp as createNestApp } from '../../examples/webhooks/nestjs.js';
import { createServer } from '../../examples/webhooks/node-http.js';
import { makeClient, mockCheckout, SECRET } from './helpers.js';

const { state } = mockCheckout({ bypassLoopback: true });

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const settled = JSON.stringify({ eventId: 'evt-example', type: 'otc.trade.settled', tradeId: 't-9' });

function options() {
  state.orders.set('order-of-t-9', { externalId: 'order-of-t-9', settlement: { status: 'Settled', tradeId: 't-9' } });
  const onEvent = vi.fn();
  return {
    onEvent,
    options: {
      secret: ['old-secret', SECRET],
      client: makeClient(),
      resolveOrderExternalId: (event: Record<string, unknown>) => `order-of-${String(event['tradeId'])}`,
      onEvent,
    },
  };
}

const signed = async (signature?: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-provider-signature': signature ?? (await signPayload(settled, SECRET)) },
  body: settled,
});

describe('examples/webhooks/node-http.ts', () => {
  it('handles a signed delivery (200, onEvent confirmed) and refuses a bad signature (401)', async () => {
    const { onEvent, options: opts } = options();
    const { server, handler } = createServer(opts);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(async () => {
      await handler.drain();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

    expect((await fetch(url, await signed('sha256=' + '1'.repeat(64)))).status).toBe(401);
    expect(onEvent).not.toHaveBeenCalled();
    expect((await fetch(url, await signed())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledWith(
      expect.objectContaining({ confirmed: true, order: expect.objectContaining({ externalId: 'order-of-t-9' }) }),
    );
    expect((await fetch(url.replace('/webhooks', '/other'), await signed())).status).toBe(404);
  });
});

describe('examples/webhooks/hono.ts', () => {
  it('handles a signed delivery (200, onEvent confirmed) and refuses a bad signature (401)', async () => {
    const { onEvent, options: opts } = options();
    const app = createHonoApp(opts);
    expect((await app.request('/webhooks', await signed('sha256=' + '1'.repeat(64)))).status).toBe(401);
    expect((await app.request('/webhooks', { ...(await signed()), headers: { 'content-type': 'application/json' } })).status).toBe(401);
    expect(onEvent).not.toHaveBeenCalled();
    expect((await app.request('/webhooks', await signed())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
    expect(onEvent.mock.calls[0]?.[0]).toMatchObject({ confirmed: true, event: { eventId: 'evt-example' } });
  });
});

describe('examples/webhooks/express.ts', () => {
  it('handles a signed delivery though the app parses JSON elsewhere', async () => {
    const { onEvent, options: opts } = options();
    const { app } = createExpressApp(opts);
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    expect((await fetch(url, await signed('sha256=' + '1'.repeat(64)))).status).toBe(401);
    expect((await fetch(url, await signed())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });
});

describe('examples/webhooks/cloudflare-worker.ts', () => {
  it('hands a delivery answered 503 to the execution context, which sees it through to onEvent', async () => {
    const { onEvent, options: opts } = options();
    let release!: () => void;
    const slow = vi.fn(() => new Promise<void>((resolve) => (release = resolve)));
    onEvent.mockImplementation(slow);
    // the 503 is the point here: it is not written to the test run's stderr
    const app = createWorkerApp({ ...opts, responseTimeoutMs: 50, logger: false });
    const handed: Promise<unknown>[] = [];
    const ctx = { waitUntil: (promise: Promise<unknown>) => void handed.push(promise), passThroughOnException: () => undefined, props: {} };
    const response = await app.request('/webhooks', await signed(), {}, ctx);
    expect(response.status).toBe(503);
    expect(handed).toHaveLength(1);
    await vi.waitFor(() => expect(slow).toHaveBeenCalledOnce(), { timeout: 10_000 });
    release();
    await handed[0];
    expect(onEvent).toHaveBeenCalledOnce();
    expect((await app.request('/webhooks', await signed(), {}, ctx)).status).toBe(200); // done: not run again
    expect(onEvent).toHaveBeenCalledOnce();
  });
});

/** Checks a running example at `origin`: 401 for a bad signature, 200 and a confirmed onEvent once, and parsed JSON on /orders if `orders`. */
async function exerciseServer(origin: string, onEvent: ReturnType<typeof vi.fn>, orders: boolean) {
  expect((await fetch(`${origin}/webhooks`, await signed('sha256=' + '1'.repeat(64)))).status).toBe(401);
  expect(onEvent).not.toHaveBeenCalled();
  expect((await fetch(`${origin}/webhooks`, await signed())).status).toBe(200);
  expect((await fetch(`${origin}/webhooks`, await signed())).status).toBe(200); // a redelivery
  expect(onEvent).toHaveBeenCalledOnce();
  expect(onEvent).toHaveBeenCalledWith(
    expect.objectContaining({ confirmed: true, order: expect.objectContaining({ externalId: 'order-of-t-9' }) }),
  );
  if (!orders) return;
  const parsed = await fetch(`${origin}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  expect(await parsed.json()).toEqual({ received: { a: 1 } });
}

describe('examples/webhooks/fastify.ts', () => {
  it('handles a signed delivery behind the scoped raw-bytes parser while /orders gets parsed JSON', async () => {
    const { onEvent, options: opts } = options();
    const { app } = createFastifyApp(opts);
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    await exerciseServer(origin, onEvent, true);
  });
});

describe('examples/webhooks/koa.ts', () => {
  it('handles a signed delivery behind @koa/bodyparser while /orders gets parsed JSON', async () => {
    const { onEvent, options: opts } = options();
    const { app, handler } = createKoaApp(opts);
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(async () => {
      await handler.drain();
      await new Promise((resolve) => server.close(resolve));
    });
    await exerciseServer(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, onEvent, true);
  });
});

describe('examples/webhooks/nestjs.ts', () => {
  it('handles a signed delivery with rawBody: true', async () => {
    const { onEvent, options: opts } = options();
    const app = await createNestApp(opts);
    await app.listen(0, '127.0.0.1');
    closers.push(() => app.close());
    await exerciseServer(await app.getUrl(), onEvent, false);
  });
});
