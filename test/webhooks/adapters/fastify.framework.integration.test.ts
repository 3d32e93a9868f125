import Fastify, { type FastifyInstance } from 'fastify';
import rawBody from 'fastify-raw-body';
import { signPayload } from 'checkout-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, postSigned, watchedHandler as makeHandler } from './framework-helpers.js';
import { mockCheckout, SECRET } from '../helpers.js';

mockCheckout({ bypassLoopback: true });
const closeLater = closeAfterEach();

/** Starts `app` on a free loopback port; it is closed after the test. */
async function listen(app: FastifyInstance): Promise<string> {
  closeLater(() => app.close());
  return app.listen({ port: 0, host: '127.0.0.1' });
}

const event = (eventId = 'evt-fastify') => JSON.stringify({ eventId, type: 'custom.fastify', payload: { n: 1 } });

const post = (url: string, body: string, signature?: string) =>
  postSigned(`${url}/webhooks`, body, signature === undefined ? {} : { signature });

describe('handler.fastify(request, reply) in Fastify 5', () => {
  it("handles signed deliveries behind a scoped parseAs: 'buffer' parser, and the rest of the app keeps parsing JSON", async () => {
    const { handler, onEvent, entries } = makeHandler();
    const app = Fastify();
    await app.register(async (webhooks) => {
      webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      webhooks.post('/webhooks', (request, reply) => handler.fastify(request, reply));
    });
    app.post('/orders', async (request) => ({ parsed: request.body }));
    const url = await listen(app);

    const handled = await post(url, event());
    expect(handled.status).toBe(200);
    expect(handled.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(onEvent).toHaveBeenCalledWith({ event: JSON.parse(event()), confirmed: false });
    expect((await post(url, event())).status).toBe(200); // a redelivery: not run again
    expect(onEvent).toHaveBeenCalledOnce();
    expect((await post(url, event('evt-forged'), 'sha256=' + 'ab'.repeat(32))).status).toBe(401);
    expect(onEvent).toHaveBeenCalledOnce();
    expect(entries.map((e) => e.outcome)).toEqual(['handled', 'duplicate', 'bad-signature']);

    const orders = await fetch(`${url}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await orders.json()).toEqual({ parsed: { a: 1 } });
  });

  it("takes the text of a parseAs: 'string' parser", async () => {
    const { handler, onEvent } = makeHandler();
    const app = Fastify();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.post('/webhooks', (request, reply) => handler.fastify(request, reply));
    const url = await listen(app);
    const body = JSON.stringify({ eventId: 'evt-ü', type: 'custom', name: 'São Paulo ✓' });
    expect((await post(url, body)).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('takes request.rawBody from fastify-raw-body, beside the parsed JSON body', async () => {
    const { handler, onEvent } = makeHandler();
    const app = Fastify();
    await app.register(rawBody, { global: false, runFirst: true });
    let parsed: unknown;
    app.post('/webhooks', { config: { rawBody: true } }, (request, reply) => {
      parsed = request.body;
      return handler.fastify(request, reply);
    });
    const url = await listen(app);
    // spaces the parsed body would not keep: only the raw bytes verify
    const body = `{ "eventId": "evt-raw-body",  "type": "custom" }`;
    expect((await post(url, body)).status).toBe(200);
    expect(parsed).toEqual({ eventId: 'evt-raw-body', type: 'custom' });
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it("answers 500 naming the scoped parseAs: 'buffer' plugin when Fastify's JSON parser took the body", async () => {
    const { handler, onEvent, entries } = makeHandler();
    const app = Fastify();
    app.post('/webhooks', (request, reply) => handler.fastify(request, reply));
    const url = await listen(app);
    const response = await post(url, event());
    expect(response.status).toBe(500);
    expect(response.text).toContain("parseAs: 'buffer'");
    expect(response.text).toContain('app.register(async (webhooks) =>');
    expect(response.text).toContain('handler.fastify(request, reply)');
    expect(response.text).not.toContain('express');
    expect(onEvent).not.toHaveBeenCalled();
    expect(entries).toMatchObject([{ outcome: 'misconfigured', status: 500 }]);
  });

  it('answers 413 over maxBodyBytes, and reads the stream itself when no parser ran (an empty signed POST: 400)', async () => {
    const { handler, onEvent, entries } = makeHandler({ maxBodyBytes: 1_000 });
    const app = Fastify();
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    app.post('/webhooks', (request, reply) => handler.fastify(request, reply));
    const url = await listen(app);
    expect((await post(url, JSON.stringify({ eventId: 'big', type: 'c', blob: 'x'.repeat(2_000) }))).status).toBe(413);
    const empty = await fetch(`${url}/webhooks`, { method: 'POST', headers: { 'x-provider-signature': await signPayload('', SECRET) } });
    expect(empty.status).toBe(400);
    expect(onEvent).not.toHaveBeenCalled();
    expect(entries.map((e) => e.outcome)).toEqual(['too-large', 'invalid']);
  });

  it('rejects with a TypeError for arguments that are not a Fastify request and reply; node() points to fastify()', async () => {
    const { handler } = makeHandler();
    await expect(handler.fastify({} as never, {} as never)).rejects.toThrow(TypeError);
    const app = Fastify();
    let thrown: unknown;
    app.post('/webhooks', async (request, reply) => {
      try {
        handler.node(request as never, reply as never);
      } catch (error) {
        thrown = error;
      }
      return 'done';
    });
    await app.ready();
    closeLater(() => app.close());
    const answer = await app.inject({
      method: 'POST',
      url: '/webhooks',
      payload: event(),
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.body).toBe('done');
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toContain('handler.fastify(request, reply)');
  });
});
