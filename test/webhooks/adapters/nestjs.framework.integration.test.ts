import type { INestApplication } from '@nestjs/common';
import { MemoryEventStore, type EventStore, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../../examples/webhooks/nestjs.js';
import { postSigned } from './framework-helpers.js';
import { deferred, makeClient, memoryLogger, mockCheckout, SECRET } from '../helpers.js';

mockCheckout({ bypassLoopback: true });

const apps: INestApplication[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** The example's Nest app (WebhooksController calling handler.node(req, res)) on a free loopback port. */
async function start(overrides: Partial<WebhookHandlerOptions> = {}, rawBody = true) {
  const onEvent = vi.fn();
  const { entries, logger } = memoryLogger();
  const app = await createApp({ secret: SECRET, client: makeClient(), onEvent, logger, ...overrides }, { rawBody });
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  return { url: `${await app.getUrl()}/webhooks`, onEvent, entries, app };
}

// spaces Nest's parsed body would not keep: only the raw bytes verify
const body = `{ "eventId": "evt-nest",  "type": "custom.nest", "city": "São Paulo" }`;

const post = (url: string) => postSigned(url, body);

describe('node(req, res) in a NestJS 11 controller', () => {
  it('verifies req.rawBody kept by NestFactory.create(AppModule, { rawBody: true })', async () => {
    const { url, onEvent, entries } = await start();
    expect((await post(url)).status).toBe(200);
    expect((await post(url)).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
    expect(onEvent).toHaveBeenCalledWith({ event: JSON.parse(body), confirmed: false });
    expect(entries.map((e) => e.outcome)).toEqual(['handled', 'duplicate']);
  });

  it('answers 500 naming { rawBody: true } when Nest parsed the body and kept no raw bytes', async () => {
    const { url, onEvent, entries } = await start({}, false);
    const response = await post(url);
    expect(response.status).toBe(500);
    expect(response.text).toContain('NestFactory.create(AppModule, { rawBody: true })');
    expect(response.text).toContain("express.raw({ type: 'application/json' })"); // Nest on Express looks like Express
    expect(onEvent).not.toHaveBeenCalled();
    expect(entries).toMatchObject([{ outcome: 'misconfigured', status: 500 }]);
  });

  it('app.close() drains (beforeApplicationShutdown): it waits for an event still in hand after its 503', async () => {
    const hold = deferred();
    const held = vi.fn(() => hold.promise);
    const { url, app, entries } = await start({ onEvent: held, responseTimeoutMs: 100 });
    apps.splice(apps.indexOf(app), 1); // closed here
    expect((await post(url)).status).toBe(503); // answered at responseTimeoutMs; onEvent still runs
    expect(held).toHaveBeenCalledOnce();
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    hold.resolve();
    await closing;
    expect(entries.map((e) => [e.outcome, e.late])).toEqual([
      ['timeout', undefined],
      ['handled', true],
    ]);
  });

  it('builds the handler in an async provider (useFactory): its setup is awaited before the app takes deliveries', async () => {
    // a store with an async setup step, like PostgresEventStore.ensureSchema(): claims fail until it ran
    let ready = false;
    const inner = new MemoryEventStore();
    const store: EventStore & { ensureSchema(): Promise<void> } = {
      ensureSchema: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        ready = true;
      },
      claim: (eventId, leaseMs) => (ready ? inner.claim(eventId, leaseMs) : Promise.reject(new Error('no table yet'))),
      complete: (eventId, lease) => inner.complete(eventId, lease),
      release: (eventId, lease) => inner.release(eventId, lease),
    };
    const onEvent = vi.fn();
    const { entries, logger } = memoryLogger();
    const app = await createApp({
      handler: async () => {
        await store.ensureSchema();
        return { secret: SECRET, client: makeClient(), store, onEvent, logger, resolveOrderExternalId: () => undefined };
      },
    });
    apps.push(app);
    expect(ready).toBe(true); // NestFactory.create awaited the factory
    await app.listen(0, '127.0.0.1');
    expect((await post(`${await app.getUrl()}/webhooks`)).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
    expect(entries.map((e) => e.outcome)).toEqual(['handled']);
  });

  it('shutdown hooks: drain() in beforeApplicationShutdown, then onShutdown (e.g. pool.end()) in onApplicationShutdown', async () => {
    const order: string[] = [];
    const hold = deferred();
    const app = await createApp({
      handler: {
        secret: SECRET,
        client: makeClient(),
        resolveOrderExternalId: () => undefined,
        responseTimeoutMs: 100,
        logger: (entry) => {
          if (entry.event === 'webhook.delivery') order.push(`logged ${entry.outcome}${entry.late ? ' (late)' : ''}`);
        },
        onEvent: async () => {
          await hold.promise;
          order.push('onEvent done');
        },
      },
      onShutdown: () => void order.push('onShutdown'),
    });
    await app.listen(0, '127.0.0.1');
    expect((await post(`${await app.getUrl()}/webhooks`)).status).toBe(503); // onEvent still in hand
    const closing = app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual(['logged timeout']); // close waits on the drain
    hold.resolve();
    await closing;
    expect(order).toEqual(['logged timeout', 'onEvent done', 'logged handled (late)', 'onShutdown']);
  });
});
