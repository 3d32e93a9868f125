import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { makeClient, memoryLogger, SECRET, until } from '../helpers.js';

// A sender that closes its connection before the whole body arrived is not a failure of the
// partner's handling (nothing was verified or claimed) and anyone can do it: it must not write
// the default stderr line meant for failed deliveries (one line per unauthenticated connection
// would let anybody flood the log), and a logger gets it as a refused delivery (`warn`), not an error.

const cleanups: (() => unknown)[] = [];
let stderr: MockInstance<typeof console.error>;
beforeEach(() => {
  stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(async () => {
  stderr.mockRestore();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const servers = {
  'node() on node:http': (handler: WebhookHandler) => listen(createServer((req, res) => handler.node(req, res))),
  'handle() on @hono/node-server': (handler: WebhookHandler) => {
    const app = new Hono();
    app.post('/webhooks', (c) => handler.handle(c.req.raw));
    return listen(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
  },
};

/** Connections the servers under test have open. */
let open = 0;

async function listen(server: Server): Promise<number> {
  server.on('connection', (socket) => {
    open += 1;
    socket.once('close', () => void (open -= 1));
  });
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

/** Sends the head and half a body of a signed-looking POST, then closes the connection. */
async function sendHalfAndClose(port: number): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    'POST /webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 400\r\n' +
      `x-provider-signature: sha256=${'0'.repeat(64)}\r\n\r\n{"eventId":"cut","type":"x"`,
  );
  await new Promise((resolve) => setTimeout(resolve, 20)); // the handler is reading the body by now
  socket.destroy();
}

const base = (overrides: Partial<WebhookHandlerOptions> = {}): WebhookHandlerOptions => ({
  secret: SECRET,
  client: makeClient(),
  resolveOrderExternalId: () => undefined,
  onEvent: () => undefined,
  ...overrides,
});

describe.each(Object.entries(servers))('a sender that disconnects mid-body, %s', (_name, serve) => {
  it('writes no stderr line by default', async () => {
    const handler = createWebhookHandler(base());
    const port = await serve(handler);
    for (let i = 0; i < 3; i += 1) await sendHalfAndClose(port);
    // every connection closed on the server's side, and the deliveries after it settled
    await until(() => open === 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await handler.drain({ timeoutMs: 5_000 })).inHand).toEqual([]);
    // the memory-store notice (test/internal/memory-notice.test.ts) is not a delivery's line
    const lines = stderr.mock.calls.map((call) => call.map(String).join(' ')).filter((line) => !line.includes(' notice memory-store: '));
    expect(lines).toEqual([]);
  });

  it("reaches a logger's warn as an aborted delivery, not its error", async () => {
    const { entries, logger } = memoryLogger();
    const levels: string[] = [];
    const handler = createWebhookHandler(
      base({
        logger: {
          info: (entry) => {
            levels.push('info');
            logger.info(entry);
          },
          warn: (entry) => {
            levels.push('warn');
            logger.warn(entry);
          },
          error: (entry) => {
            levels.push('error');
            logger.error(entry);
          },
        },
      }),
    );
    await sendHalfAndClose(await serve(handler));
    await until(() => entries.length > 0);
    expect(entries).toEqual([expect.objectContaining({ outcome: 'aborted', status: 400 })]);
    expect(entries[0]?.eventId).toBeUndefined();
    expect(levels).toEqual(['warn']);
  });
});
