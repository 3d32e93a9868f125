import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { createWebhookHandler, signPayload } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeClient, memoryLogger, mockCheckout, SECRET } from './helpers.js';

mockCheckout({ bypassLoopback: true });

const servers: ServerType[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Serves `app` with @hono/node-server on a free loopback port. */
async function listen(app: Hono): Promise<string> {
  const { promise, resolve } = Promise.withResolvers<AddressInfo>();
  servers.push(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, resolve));
  return `http://127.0.0.1:${(await promise).port}/webhooks`;
}

function setup() {
  const onEvent = vi.fn();
  const { entries, logger } = memoryLogger();
  const handler = createWebhookHandler({ secret: SECRET, client: makeClient(), onEvent, logger });
  return { handler, onEvent, entries };
}

const body = `{ "eventId": "evt-hono",  "type": "custom.hono" }`;

async function post(url: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provider-signature': await signPayload(body, SECRET) },
    body,
  });
  return { status: response.status, text: await response.text() };
}

describe('handle(c.req.raw) in Hono on @hono/node-server', () => {
  it('handles a signed delivery over a real connection, once', async () => {
    const { handler, onEvent, entries } = setup();
    const app = new Hono();
    app.post('/webhooks', (c) => handler.handle(c.req.raw));
    const url = await listen(app);
    expect((await post(url)).status).toBe(200);
    expect((await post(url)).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
    expect(entries.map((e) => e.outcome)).toEqual(['handled', 'duplicate']);
  });

  it('answers 500 naming the fix when the route read c.req.json() first', async () => {
    const { handler, onEvent } = setup();
    const app = new Hono();
    app.post('/webhooks', async (c) => {
      await c.req.json();
      return handler.handle(c.req.raw);
    });
    const response = await post(await listen(app));
    expect(response.status).toBe(500);
    expect(response.text).toContain('c.req.json()');
    expect(onEvent).not.toHaveBeenCalled();
  });
});
