import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect as connectHttp2, createServer as createHttp2Server, type ClientHttp2Session } from 'node:http2';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import Fastify from 'fastify';
import Koa from 'koa';
import { createWebhookHandler, type WebhookHandler } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeClient, memoryLogger, SECRET } from '../helpers.js';
import type { LogEntry } from 'checkout-partner-sdk';

type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;

// A sender that stalls mid-body (1 byte a second, a content-length larger than it sends) must hold
// neither the connection past the response deadline nor a shutdown: the body read ends at
// `responseTimeoutMs`, and `drain()` never waits on a body still arriving.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The handler under a real node:http server (`node()`) or @hono/node-server (`handle()`). */
const servers = {
  'node() on node:http': async (handler: WebhookHandler) => {
    const server = createServer((req, res) => handler.node(req, res));
    return listen(server);
  },
  'handle() on @hono/node-server': async (handler: WebhookHandler) => {
    const app = new Hono();
    app.post('/webhooks', (c) => handler.handle(c.req.raw));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    return listen(server);
  },
  'koa() in Koa 3, no body parser': async (handler: WebhookHandler) => {
    const app = new Koa();
    app.use((ctx) => handler.koa(ctx));
    return listen(app.listen(0, '127.0.0.1'));
  },
  'fastify() in Fastify 5, a parser that leaves the stream': async (handler: WebhookHandler) => {
    const app = Fastify();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    app.post('/webhooks', (request, reply) => handler.fastify(request, reply));
    await app.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => app.close());
    return (app.server.address() as AddressInfo).port;
  },
};

async function listen(server: Server): Promise<number> {
  if (!server.listening) {
    if (server.address() === null) server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  }
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as AddressInfo).port;
}

/**
 * A raw TCP client: headers declaring a 100-byte body, then 1 byte, then 1 byte a second (at most
 * 30). `closed` resolves with the ms from the first byte sent to the server closing the connection.
 */
async function slowSender(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // writes after the server closed: expected
  await once(socket, 'connect');
  const started = Date.now();
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  socket.write(
    'POST /webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n' +
      'x-provider-signature: sha256=00\r\n\r\n{',
  );
  let sent = 1;
  const drip = setInterval(() => {
    if (socket.destroyed || sent >= 30) {
      clearInterval(drip);
      return;
    }
    socket.write(' ');
    sent += 1;
  }, 1_000);
  cleanups.push(() => {
    clearInterval(drip);
    socket.destroy();
  });
  return { closed, received: () => received, sent: () => sent };
}

/** `promise`, or `'pending'` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms).unref())]);
}

function makeHandler(responseTimeoutMs: number) {
  const onEvent = vi.fn();
  const { entries, logger } = memoryLogger();
  const handler = createWebhookHandler({ secret: SECRET, client: makeClient(), onEvent, logger, responseTimeoutMs });
  return { handler, onEvent, entries };
}

const lateTimeout = (entries: WebhookLogEntry[]) => entries.find((entry) => entry.late === true);

describe.each(Object.entries(servers))('a slow sender, %s', (_name, start) => {
  it('is answered 503 at responseTimeoutMs, its body read ends there, the connection closes and drain() does not wait', async () => {
    const { handler, onEvent, entries } = makeHandler(500);
    const sender = await slowSender(await start(handler));

    // the connection ends soon after the 503, long before the 100 declared bytes could arrive
    const closedAfter = await within(sender.closed, 5_000);
    expect(closedAfter).not.toBe('pending');
    expect(closedAfter).toBeGreaterThanOrEqual(450);
    expect(sender.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(sender.received()).toContain('Service Unavailable');
    expect(sender.sent()).toBeLessThan(10);

    // the delivery is over: drain() resolves at once, and the late entry says why
    expect(await within(handler.drain(), 200)).toEqual({ drained: true, inHand: [] });
    expect(entries[0]).toMatchObject({ outcome: 'timeout', status: 503 });
    expect(lateTimeout(entries)).toMatchObject({ outcome: 'timeout', late: true, error: { name: 'BodyDeadlineError' } });
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('is answered 503 at once by drain(), which resolves without waiting for the body', async () => {
    const { handler, onEvent, entries } = makeHandler(8_000);
    const sender = await slowSender(await start(handler));
    await vi.waitFor(() => expect(sender.sent()).toBe(1), { timeout: 10_000 }); // headers and the first byte are out
    await new Promise((resolve) => setTimeout(resolve, 100)); // and the server is reading the body

    const drained = Date.now();
    // not the 8 s the body could take: a margin for a loaded machine
    expect(await within(handler.drain(), 4_000)).toEqual({ drained: true, inHand: [] });
    expect(Date.now() - drained).toBeLessThan(4_000);
    expect(await within(sender.closed, 5_000)).not.toBe('pending');
    expect(sender.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(sender.received()).toContain('shutting down');
    expect(entries).toEqual([expect.objectContaining({ outcome: 'draining', status: 503 })]);
    expect(onEvent).not.toHaveBeenCalled();
  });
});

describe('a slow sender, node() on node:http2 (its compat request and response)', () => {
  /** An h2c server on loopback whose requests go to `handler.node`, and a session to it. */
  async function h2(handler: WebhookHandler) {
    const server = createHttp2Server((req, res) => handler.node(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const session = connectHttp2(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    session.on('error', () => undefined);
    cleanups.push(() => {
      session.destroy();
      return new Promise((resolve) => server.close(resolve));
    });
    return session;
  }

  /** A POST that sends `first`, then `more` every 100 ms (at most 30 times) until the server closes its stream. */
  function drip(session: ClientHttp2Session, first: string, more: string) {
    const stream = session.request({
      ':method': 'POST',
      ':path': '/webhooks',
      'content-type': 'application/json',
      'x-provider-signature': 'sha256=00',
    });
    stream.on('error', () => undefined);
    let status: unknown;
    let body = '';
    stream.on('response', (headers) => (status = headers[':status']));
    stream.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    // `closed` once the server ended the stream (its RST_STREAM): the client's own 'close' also
    // waits for the writes it still buffers under flow control
    let ended!: () => void;
    const closed = new Promise<void>((resolve) => (ended = resolve));
    stream.once('close', ended);
    stream.write(first);
    let sent = 0;
    const timer = setInterval(() => {
      if (stream.destroyed || stream.closed) ended();
      if (stream.destroyed || stream.closed || ++sent > 30) {
        clearInterval(timer);
        return;
      }
      stream.write(more);
    }, 100);
    cleanups.push(() => clearInterval(timer));
    return { closed, answer: () => ({ status, body }) };
  }

  it('closes the stream after the 503 at responseTimeoutMs and after a 413, without a Connection-header warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    cleanups.push(() => process.off('warning', onWarning));
    const { handler, onEvent } = makeHandler(300);
    const session = await h2(handler);

    const slow = drip(session, '{', ' ');
    expect(await within(slow.closed, 2_000)).not.toBe('pending');
    expect(slow.answer()).toEqual({ status: 503, body: expect.stringContaining('Service Unavailable') });

    const big = drip(session, 'x'.repeat(2_000_000), 'x'.repeat(100)); // past the 1 MiB default
    expect(await within(big.closed, 2_000)).not.toBe('pending');
    expect(big.answer().status).toBe(413);

    expect(await within(handler.drain(), 200)).toEqual({ drained: true, inHand: [] });
    expect(warnings.filter((message) => /connection header/i.test(message))).toEqual([]);
    expect(onEvent).not.toHaveBeenCalled();
  });
});
