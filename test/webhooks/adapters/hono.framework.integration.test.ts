import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, postSigned, watchedHandler as setup } from './framework-helpers.js';
import { mockCheckout } from '../helpers.js';

mockCheckout({ bypassLoopback: true });
const closeLater = closeAfterEach();

/** Serves `app` with @hono/node-server on a free loopback port. */
async function listen(app: Hono): Promise<string> {
  const { promise, resolve } = Promise.withResolvers<AddressInfo>();
  const server: ServerType = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, resolve);
  closeLater(() => new Promise((done) => server.close(done)));
  return `http://127.0.0.1:${(await promise).port}/webhooks`;
}

const body = `{ "eventId": "evt-hono",  "type": "custom.hono" }`;

const post = (url: string) => postSigned(url, body);

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
