import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createWebhookHandler, signPayload } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeClient, memoryLogger, mockCheckout, recordingStore, SECRET } from '../helpers.js';

mockCheckout({ bypassLoopback: true });

const body = JSON.stringify({ eventId: 'evt-method', type: 'custom' });

function setup() {
  const onEvent = vi.fn();
  const { calls, store } = recordingStore();
  const { entries, logger } = memoryLogger();
  const handler = createWebhookHandler({ secret: SECRET, client: makeClient(), onEvent, store, logger });
  return { handler, onEvent, calls, entries };
}

/** A signed request whose body stream counts its reads (highWaterMark 0: nothing is pulled unless read). */
async function counted(method: string, bytes: Uint8Array, headers: Record<string, string> = {}) {
  const reads = { count: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        reads.count += 1;
        controller.enqueue(bytes);
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  const request = new Request('https://partner.test/webhooks', {
    method,
    body: stream,
    headers: { 'content-type': 'application/json', 'x-provider-signature': await signPayload(bytes, SECRET), ...headers },
    duplex: 'half',
  } as RequestInit);
  return { request, reads };
}

describe('methods', () => {
  it.each(['PUT', 'PATCH', 'DELETE'])('answers %s with a signed body 405 with Allow: POST, without reading it', async (method) => {
    const { handler, onEvent, calls, entries } = setup();
    const { request, reads } = await counted(method, new TextEncoder().encode(body));
    const response = await handler.handle(request);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.text()).toMatch(/Method Not Allowed/);
    expect(reads.count).toBe(0);
    expect(calls).toEqual([]);
    expect(onEvent).not.toHaveBeenCalled();
    expect(entries).toMatchObject([{ outcome: 'method-not-allowed', status: 405 }]);
  });

  it.each(['GET', 'HEAD', 'OPTIONS'])('answers %s 405 with Allow: POST', async (method) => {
    const { handler, onEvent } = setup();
    const response = await handler.handle(new Request('https://partner.test/webhooks', { method }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('answers 405 before a draining handler answers 503', async () => {
    const { handler } = setup();
    await handler.drain();
    expect((await handler.handle(new Request('https://partner.test/webhooks'))).status).toBe(405);
  });
});

describe('content-encoding', () => {
  it('answers a gzip body 415 with a message and Accept-Encoding: identity, without reading it', async () => {
    const { handler, onEvent, calls, entries } = setup();
    // signed over the bytes as sent (compressed): still refused, never decoded
    const { request, reads } = await counted('POST', gzipSync(body), { 'content-encoding': 'gzip' });
    const response = await handler.handle(request);
    expect(response.status).toBe(415);
    expect(response.headers.get('accept-encoding')).toBe('identity');
    expect(await response.text()).toMatch(/content-encoding other than identity; send it uncompressed/);
    expect(reads.count).toBe(0);
    expect(calls).toEqual([]);
    expect(onEvent).not.toHaveBeenCalled();
    expect(entries).toMatchObject([{ outcome: 'unsupported-encoding', status: 415 }]);
  });

  it.each(['br', 'deflate', 'GZIP', 'identity, gzip', 'x-custom'])('answers content-encoding %j 415', async (encoding) => {
    const { handler } = setup();
    const { request } = await counted('POST', new TextEncoder().encode(body), { 'content-encoding': encoding });
    expect((await handler.handle(request)).status).toBe(415);
  });

  it.each(['identity', 'IDENTITY', ''])('handles content-encoding %j as the plain body', async (encoding) => {
    const { handler, onEvent } = setup();
    const { request } = await counted('POST', new TextEncoder().encode(body), { 'content-encoding': encoding });
    expect((await handler.handle(request)).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });
});

describe('node(req, res)', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function send(method: string, payload: Buffer, headers: Record<string, string> = {}) {
    const { handler, onEvent } = setup();
    const server = createServer((req, res) => handler.node(req, res));
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const signature = await signPayload(payload, SECRET);
    const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        path: '/webhooks',
        method,
        headers: {
          'content-type': 'application/json',
          'content-length': String(payload.length),
          'x-provider-signature': signature,
          ...headers,
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end(payload);
    });
    return { answer, onEvent };
  }

  it('answers a GET carrying a signed body 405 with Allow: POST and does not handle it', async () => {
    const { answer, onEvent } = await send('GET', Buffer.from(body));
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    expect(answer.headers.connection).toBe('close'); // the unread body is not drained
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('answers a gzip body 415', async () => {
    const { answer, onEvent } = await send('POST', gzipSync(body), { 'content-encoding': 'gzip' });
    expect(answer.status).toBe(415);
    expect(answer.text).toMatch(/send it uncompressed/);
    expect(onEvent).not.toHaveBeenCalled();
  });
});
