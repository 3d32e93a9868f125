import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createWebhookHandler, signPayload, type WebhookHandler, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeClient, memoryLogger, mockCheckout, SECRET } from '../helpers.js';

mockCheckout({ bypassLoopback: true });

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function makeHandler(overrides: Partial<WebhookHandlerOptions> = {}) {
  const onEvent = vi.fn();
  const { entries, logger } = memoryLogger();
  const handler = createWebhookHandler({ secret: SECRET, client: makeClient(), onEvent, logger, ...overrides });
  return { handler, onEvent, entries };
}

/** POSTs `body` with node:http (no fetch), signed unless `signature` is given, and reads the answer. */
async function post(
  url: string,
  body: string | Buffer,
  options: { signature?: string | null; headers?: Record<string, string>; chunked?: boolean } = {},
): Promise<{ status: number; text: string; headers: IncomingMessage['headers'] }> {
  const signature = options.signature === undefined ? await signPayload(body, SECRET) : options.signature;
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(signature === null ? {} : { 'x-provider-signature': signature }),
        ...(options.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(body)) }),
        ...options.headers,
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.chunked) {
      const buffer = Buffer.from(body);
      for (let i = 0; i < buffer.length; i += 1024) req.write(buffer.subarray(i, i + 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}

const plainServer = (handler: WebhookHandler) => createServer((req: IncomingMessage, res: ServerResponse) => handler.node(req, res));

const event = (eventId = 'evt-node') => JSON.stringify({ eventId, type: 'custom.node', payload: { n: 1 } });

describe('node(req, res) on node:http', () => {
  it('reads the raw body itself and handles a signed delivery', async () => {
    const { handler, onEvent } = makeHandler();
    const url = await listen(plainServer(handler));
    const response = await post(url, event());
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(onEvent).toHaveBeenCalledWith({ event: JSON.parse(event()), confirmed: false });
    expect((await post(url, event())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('handles a chunked body', async () => {
    const { handler, onEvent } = makeHandler();
    const url = await listen(plainServer(handler));
    const body = JSON.stringify({ eventId: 'evt-chunked', type: 'custom', blob: 'x'.repeat(10_000) });
    expect((await post(url, body, { chunked: true })).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('answers 401 to a bad signature', async () => {
    const { handler, onEvent } = makeHandler();
    const url = await listen(plainServer(handler));
    expect((await post(url, event(), { signature: 'sha256=' + 'ab'.repeat(32) })).status).toBe(401);
    expect((await post(url, event(), { signature: null })).status).toBe(401);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('answers 413 to an oversized body, by Content-Length or while streaming', async () => {
    const { handler, onEvent, entries } = makeHandler({ maxBodyBytes: 4_096 });
    const url = await listen(plainServer(handler));
    const big = JSON.stringify({ eventId: 'evt-big', type: 'custom', blob: 'x'.repeat(200_000) });
    const declared = await post(url, big);
    expect(declared.status).toBe(413);
    expect(declared.headers.connection).toBe('close');
    expect((await post(url, big, { chunked: true })).status).toBe(413);
    expect(onEvent).not.toHaveBeenCalled();
    expect(entries.map((e) => e.outcome)).toEqual(['too-large', 'too-large']);
    expect((await post(url, event('evt-after'))).status).toBe(200); // the server is still fine
  });

  it('uses bytes or text a body parser left in req.body', async () => {
    const { handler, onEvent } = makeHandler();
    const body = event('evt-prebuffered');
    const signature = await signPayload(body, SECRET);
    const answer = (reqBody: unknown) =>
      new Promise<number>((resolve) => {
        const req = Object.assign((async function* () {})(), {
          headers: { 'x-provider-signature': signature },
          body: reqBody,
          readableEnded: true,
        });
        const res = { statusCode: 0, setHeader: () => undefined, end: () => resolve(res.statusCode) };
        handler.node(req, res);
      });
    expect(await answer(Buffer.from(body))).toBe(200);
    expect(await answer(body)).toBe(200);
    expect(await answer(body.replace('custom', 'other'))).toBe(401);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('throws TypeError for arguments that are not a request and a response', () => {
    const { handler } = makeHandler();
    expect(() => handler.node({} as never, {} as never)).toThrow(TypeError);
  });
});

describe('node(req, res) in Express', () => {
  it('works on a route without a body parser', async () => {
    const { handler, onEvent } = makeHandler();
    const app = express();
    app.post('/webhooks', (req, res) => handler.node(req, res));
    app.use(express.json());
    const url = await listen(createServer(app));
    expect((await post(url, event())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('works behind express.raw({ type: "application/json" }), and answers 413 over maxBodyBytes', async () => {
    const { handler, onEvent } = makeHandler({ maxBodyBytes: 1_000 });
    const app = express();
    app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => handler.node(req, res));
    const url = await listen(createServer(app));
    expect((await post(url, event())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
    expect((await post(url, JSON.stringify({ eventId: 'b', type: 'c', blob: 'x'.repeat(2_000) }))).status).toBe(413);
  });

  it('answers 500 explaining the fix when express.json() consumed the raw body', async () => {
    const { handler, onEvent, entries } = makeHandler();
    const app = express();
    app.use(express.json());
    app.post('/webhooks', (req, res) => handler.node(req, res));
    const url = await listen(createServer(app));
    const response = await post(url, event());
    expect(response.status).toBe(500);
    expect(response.text).toContain('express.json()');
    expect(response.text).toContain("express.raw({ type: 'application/json' })");
    expect(onEvent).not.toHaveBeenCalled();
    expect(entries).toMatchObject([{ outcome: 'misconfigured', status: 500 }]);
  });

  it('answers 500 with an explanation when the stream was read and nothing was left', async () => {
    const { handler } = makeHandler();
    const server = createServer((req, res) => {
      // a framework that swallowed the body
      void req.toArray().then(() => handler.node(req, res));
    });
    const url = await listen(server);
    const response = await post(url, event());
    expect(response.status).toBe(500);
    expect(response.text).toMatch(/already read/);
  });
});
