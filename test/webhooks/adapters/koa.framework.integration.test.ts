import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { request as httpRequest } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import { signPayload } from 'checkout-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, postSigned, watchedHandler as makeHandler } from './framework-helpers.js';
import { mockCheckout, SECRET } from '../helpers.js';

mockCheckout({ bypassLoopback: true });
const closeLater = closeAfterEach();

/** Serves `app` on a free loopback port; it is closed after the test. */
async function listen(app: Koa): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  closeLater(() => new Promise((resolve) => server.close(resolve)));
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A Koa app that answers POST /webhooks with `route`, behind `before` (a body parser, say), and 404 elsewhere. */
function koaApp(route: (ctx: Koa.Context) => unknown, before?: Koa.Middleware) {
  const app = new Koa();
  if (before) app.use(before);
  app.use(async (ctx, next) => {
    if (ctx.method === 'POST' && ctx.path === '/webhooks') await route(ctx);
    else await next();
  });
  return app;
}

const event = (eventId = 'evt-koa') => JSON.stringify({ eventId, type: 'custom.koa', payload: { n: 1 } });

const post = (url: string, body: string, options?: { signature?: string; contentType?: string }) =>
  postSigned(`${url}/webhooks`, body, options);

/** POSTs `body` in chunks without a Content-Length, as a streaming sender does. */
async function postChunked(url: string, body: string): Promise<number> {
  const signature = await signPayload(body, SECRET);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-provider-signature': signature, 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    const buffer = Buffer.from(body);
    for (let i = 0; i < buffer.length; i += 1024) req.write(buffer.subarray(i, i + 1024));
    req.end();
  });
}

describe('handler.koa(ctx) in Koa 3', () => {
  it('reads the body stream itself when no body parser is in front', async () => {
    const { handler, onEvent, entries } = makeHandler({ maxBodyBytes: 4_096 });
    const url = await listen(koaApp((ctx) => handler.koa(ctx)));
    const handled = await post(url, event());
    expect(handled.status).toBe(200);
    expect(handled.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(onEvent).toHaveBeenCalledWith({ event: JSON.parse(event()), confirmed: false });
    expect((await post(url, event())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
    expect((await post(url, event('evt-forged'), { signature: 'sha256=' + 'ab'.repeat(32) })).status).toBe(401);
    const big = JSON.stringify({ eventId: 'evt-big', type: 'custom', blob: 'x'.repeat(20_000) });
    expect((await post(url, big)).status).toBe(413);
    expect(await postChunked(url, big)).toBe(413);
    expect(await postChunked(url, event('evt-chunked'))).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(2);
    expect(entries.map((e) => e.outcome)).toEqual(['handled', 'duplicate', 'bad-signature', 'too-large', 'too-large', 'handled']);
    expect((await fetch(`${url}/other`)).status).toBe(404); // Koa still answers the rest of the app
  });

  it('takes ctx.request.rawBody behind @koa/bodyparser, and reads the stream of a type the parser left alone', async () => {
    const { handler, onEvent } = makeHandler();
    const url = await listen(koaApp((ctx) => handler.koa(ctx), bodyParser()));
    // spaces the parsed body would not keep: only the raw bytes verify
    const body = `{ "eventId": "evt-bodyparser",  "type": "custom", "city": "São Paulo" }`;
    expect((await post(url, body)).status).toBe(200);
    expect((await post(url, event('evt-text'), { contentType: 'text/plain' })).status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(2);
  });

  it('sets ctx.respond = false and answers on ctx.res, so middleware upstream sees the status', async () => {
    const { handler } = makeHandler();
    const seen: { status?: number; respond?: boolean | undefined } = {};
    const url = await listen(
      koaApp(
        (ctx) => handler.koa(ctx),
        async (ctx, next) => {
          await next();
          seen.status = ctx.status;
          seen.respond = ctx.respond;
        },
      ),
    );
    expect((await post(url, event(), { signature: 'sha256=' + 'ab'.repeat(32) })).status).toBe(401);
    expect(seen).toEqual({ status: 401, respond: false });
  });

  it('frames its answer by its own length when middleware upstream set ctx.body first (Koa set Content-Length for that)', async () => {
    const { handler, onEvent } = makeHandler();
    const url = await listen(
      koaApp(
        (ctx) => handler.koa(ctx),
        async (ctx, next) => {
          ctx.body = 'a default answer, longer than the one the handler writes'; // e.g. a default 404 text
          await next();
        },
      ),
    );
    // over a raw connection, so a wrong Content-Length shows instead of hanging a client
    const body = event('evt-koa-preset');
    const signature = await signPayload(body, SECRET);
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    await once(socket, 'connect');
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('latin1')));
    socket.write(
      `POST /webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nx-provider-signature: ${signature}\r\n\r\n${body}`,
    );
    await once(socket, 'close');
    const [head = '', text = ''] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toBe('OK: event handled');
    expect(head.toLowerCase()).toContain(`content-length: ${text.length}\r\n`);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('answers 500 naming the Koa fix when a body parser kept no raw body', async () => {
    const { handler, onEvent, entries } = makeHandler();
    // a parser like koa-body without includeUnparsed: it reads the stream and keeps only the parsed object
    const parseOnly: Koa.Middleware = async (ctx, next) => {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      (ctx.request as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      await next();
    };
    const url = await listen(koaApp((ctx) => handler.koa(ctx), parseOnly));
    const response = await post(url, event());
    expect(response.status).toBe(500);
    expect(response.text).toContain('@koa/bodyparser');
    expect(response.text).toContain('handler.koa(ctx)');
    expect(response.text).not.toContain('express');
    expect(onEvent).not.toHaveBeenCalled();
    expect(entries).toMatchObject([{ outcome: 'misconfigured', status: 500 }]);
  });

  it('node(ctx.req, ctx.res) behind a body parser answers 500 naming handler.koa(ctx)', async () => {
    const { handler } = makeHandler();
    const url = await listen(
      koaApp((ctx) => {
        ctx.respond = false;
        handler.node(ctx.req, ctx.res);
      }, bodyParser()),
    );
    const response = await post(url, event());
    expect(response.status).toBe(500);
    expect(response.text).toContain('handler.koa(ctx)');
  });

  it('rejects with a TypeError for an argument that is not a Koa context, leaving Koa to answer', async () => {
    const { handler } = makeHandler();
    await expect(handler.koa({} as never)).rejects.toThrow(TypeError);
    await expect(handler.koa(null as never)).rejects.toThrow(/Koa context/);
  });
});
