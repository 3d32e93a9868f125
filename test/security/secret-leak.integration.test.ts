import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CheckoutClient, CheckoutError, type CheckoutClientOptions, type LogEntry } from 'checkout-partner-sdk';
import { RedisEventStore, RedisTokenStore } from 'checkout-partner-sdk/redis';
import { createWebhookHandler, parseEvent, signPayload, verifySignature, type EventStore } from 'checkout-partner-sdk/webhooks';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;

// Runs every error path the SDK has (CLI aside) against a real loopback service and a real Redis,
// and scans everything a partner could print or ship to a log (messages, stacks, JSON.stringify,
// util.inspect with hidden fields at any depth, cause chains, logger entries, console output, the
// handler's responses) for the partner secret, every access token the service issued, and the
// webhook signing secret, also base64-, base64url-, hex- and percent-encoded.

const PARTNER_ID = 'leak-partner';
const PARTNER_SECRET = `leak-partner-secret-${randomUUID()}`;
const WEBHOOK_SECRET = `whsec-leak-${randomUUID()}`;
/** Every access token the service handed out, in a valid response or not. */
const issued: string[] = [];

type ExchangeMode = 'ok' | 401 | 403 | 500 | 'no-token' | 'bad-with-token' | 'slow' | 'reset' | 'echo';
type BusinessMode = 'ok' | 401 | 404 | 429 | 500 | 'bad-body' | 'slow' | 'reset' | 'echo' | 'echo-bad-body';
const mode: { exchange: ExchangeMode; business: BusinessMode } = { exchange: 'ok', business: 'ok' };

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': randomUUID() });
  res.end(JSON.stringify(body));
}

function newToken(): string {
  const token = `leak-token-${issued.length}-${randomUUID()}`;
  issued.push(token);
  return token;
}

function serve(req: IncomingMessage, res: ServerResponse): void {
  const slow = () => {
    const timer = setTimeout(() => json(res, 200, {}), 2_000);
    res.once('close', () => clearTimeout(timer));
  };
  if (req.method === 'POST' && req.url?.endsWith('/auth/token')) {
    switch (mode.exchange) {
      case 'ok':
        json(res, 200, { accessToken: newToken(), tokenType: 'Bearer', expiresIn: 3600 });
        return;
      case 'no-token':
        json(res, 200, { tokenType: 'Bearer' });
        return;
      case 'bad-with-token': // a broken service: a token, but a body that fails validation
        json(res, 200, { accessToken: newToken(), tokenType: 'Bearer', expiresIn: 'soon' });
        return;
      case 'slow':
        slow();
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'echo': // a broken service (or a debugging proxy) quoting the request back, in the body and a header
        res.writeHead(400, { 'content-type': 'application/json', 'x-debug-secret': String(req.headers['x-partner-secret']) });
        res.end(JSON.stringify({ message: `bad secret ${String(req.headers['x-partner-secret'])}`, headers: req.headers }));
        return;
      default:
        json(res, mode.exchange, { message: 'exchange refused' });
        return;
    }
  }
  switch (mode.business) {
    case 'ok':
      json(res, 200, { externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' }, status: 'Processing' });
      return;
    case 'bad-body':
      json(res, 200, { externalId: 42 });
      return;
    case 'slow':
      slow();
      return;
    case 'reset':
      req.socket.destroy();
      return;
    case 'echo':
      res.writeHead(400, { 'content-type': 'text/plain', 'x-debug-auth': String(req.headers.authorization) });
      res.end(`rejected ${String(req.headers.authorization)}`);
      return;
    case 'echo-bad-body':
      json(res, 200, { externalId: 42, seen: { authorization: req.headers.authorization } });
      return;
    default:
      json(res, mode.business, { message: 'business refused' });
      return;
  }
}

let server: Server;
let baseUrl: string;
let closedPortUrl: string;
let redis: RedisServer;
const redisClients: Redis[] = [];
const clients: CheckoutClient[] = [];
const logged: unknown[] = [];
const consoleOutput: unknown[] = [];

beforeAll(async () => {
  server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // a port nobody listens on: bind one, then close it
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedPortUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  redis = await startRedis();
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      consoleOutput.push(args);
    });
  }
});

afterEach(() => {
  mode.exchange = 'ok';
  mode.business = 'ok';
});

afterAll(async () => {
  vi.restoreAllMocks();
  for (const client of redisClients) client.disconnect();
  await redis?.stop();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function newClient(options: CheckoutClientOptions = {}): CheckoutClient {
  const client = new CheckoutClient({
    baseUrl,
    partnerId: PARTNER_ID,
    partnerSecret: PARTNER_SECRET,
    maxRetries: 0,
    // the timeout cases wait it out; every other call, the warming exchange included, must fit in it on a loaded machine
    timeoutMs: 2_000,
    ...options,
  });
  clients.push(client);
  return client;
}

/** A fail-fast ioredis client, connected (or, for a dead port, failing every command at once). */
async function newRedis(url = redis.url): Promise<Redis> {
  const client = new Redis(url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
  client.on('error', () => undefined);
  redisClients.push(client);
  await client.connect().catch(() => undefined);
  return client;
}

/** Every way a partner might print `value`. */
function printable(value: unknown): string {
  const parts = [inspect(value, { showHidden: true, depth: Infinity, getters: true })];
  try {
    parts.push(JSON.stringify(value) ?? '');
  } catch (error) {
    parts.push(`unserialisable: ${String(error)}`);
  }
  let current: unknown = value;
  for (let depth = 0; depth < 10 && current instanceof Error; depth++) {
    parts.push(String(current), current.message, current.stack ?? '');
    current = current.cause;
  }
  if (value !== null && typeof value === 'object' && !(value instanceof Error)) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- as a partner's String(value) prints it, [object Object] included
      parts.push(String(value));
    } catch {
      // an object without toString
    }
  }
  return parts.join('\n');
}

/** Each secret as a partner might find it in a log: plain, base64, base64url, hex, percent-encoded. */
function forms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [...new Set([secret, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), encodeURIComponent(secret)])];
}

function secrets(): { label: string; value: string }[] {
  return [
    { label: 'partner secret', value: PARTNER_SECRET },
    { label: 'webhook signing secret', value: WEBHOOK_SECRET },
    ...issued.map((token, i) => ({ label: `access token #${i}`, value: token })),
  ];
}

/** Fails with what leaked where. */
function expectNoSecret(text: string, where: string): void {
  const leaks: string[] = [];
  for (const { label, value } of secrets()) {
    for (const form of forms(value)) if (text.includes(form)) leaks.push(`${label} (${form === value ? 'plain' : 'encoded'})`);
  }
  expect(leaks, `${where} leaked: ${leaks.join(', ')}`).toEqual([]);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${inspect(value)}`);
    },
    (error: unknown) => error,
  );
}

async function warm(client: CheckoutClient): Promise<void> {
  await client.getAccessToken(); // so the error path runs with a token in the client's hands
}

describe('no secret reaches an error, a log or a printed object', () => {
  const clientPaths: [string, string, () => Promise<unknown>][] = [
    [
      'exchange 401',
      'AuthenticationError',
      async () => {
        mode.exchange = 401;
        return rejection(newClient().getMe());
      },
    ],
    [
      'exchange 403',
      'PermissionDeniedError',
      async () => {
        mode.exchange = 403;
        return rejection(newClient().getMe());
      },
    ],
    [
      'exchange 500',
      'ServerError',
      async () => {
        mode.exchange = 500;
        return rejection(newClient().getMe());
      },
    ],
    [
      'exchange body without a token',
      'ResponseValidationError',
      async () => {
        mode.exchange = 'no-token';
        return rejection(newClient().getAccessToken());
      },
    ],
    [
      'exchange error quoting the secret back',
      'ApiError',
      async () => {
        mode.exchange = 'echo';
        return rejection(newClient().getMe());
      },
    ],
    [
      'business error quoting the token back',
      'ApiError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 'echo';
        return rejection(c.getOrderByExternalId('o-1'));
      },
    ],
    [
      'business 200 that fails validation, quoting the token back',
      'ResponseValidationError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 'echo-bad-body';
        return rejection(c.getOrderByExternalId('o-1'));
      },
    ],
    [
      'exchange connection reset',
      'ConnectionError',
      async () => {
        mode.exchange = 'reset';
        return rejection(newClient().getMe());
      },
    ],
    [
      'exchange timeout',
      'TimeoutError',
      async () => {
        mode.exchange = 'slow';
        return rejection(newClient().getMe());
      },
    ],
    [
      'business 401 twice',
      'AuthenticationError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 401;
        return rejection(c.getOrderByExternalId('o-1'));
      },
    ],
    [
      'business 404',
      'NotFoundError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 404;
        return rejection(c.getOrderByExternalId('o-1'));
      },
    ],
    [
      'business 429',
      'RateLimitError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 429;
        return rejection(c.getWithdrawalByExternalId('w-1'));
      },
    ],
    [
      'business 500',
      'ServerError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 500;
        return rejection(c.getMe());
      },
    ],
    [
      'business validation failure',
      'ResponseValidationError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 'bad-body';
        return rejection(c.getOrderByExternalId('o-1'));
      },
    ],
    [
      'business timeout',
      'TimeoutError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 'slow';
        return rejection(c.getOrderByExternalId('o-1'));
      },
    ],
    [
      'business connection reset',
      'ConnectionError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 'reset';
        return rejection(c.getOrderByExternalId('o-1'));
      },
    ],
    ['connection refused (closed loopback port)', 'ConnectionError', async () => rejection(newClient({ baseUrl: closedPortUrl }).getMe())],
    [
      'abort',
      'AbortError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 'slow';
        const controller = new AbortController();
        const call = c.getOrderByExternalId('o-1', { signal: controller.signal });
        setTimeout(() => controller.abort(), 20);
        return rejection(call);
      },
    ],
    [
      'waitForOrder runs out of time',
      'WaitTimeoutError',
      async () => {
        const c = newClient();
        await warm(c);
        return rejection(c.waitForOrder('o-1', () => false, { timeoutMs: 60, intervalMs: 20 }));
      },
    ],
    [
      'request() POST 500',
      'ServerError',
      async () => {
        const c = newClient();
        await warm(c);
        mode.business = 500;
        return rejection(c.request('POST', '/orders/o-1/payment', { json: { amount: 1 } }));
      },
    ],
    [
      'partnerSecret function returning a non-string',
      'TypeError',
      async () => rejection(newClient({ partnerSecret: () => 42 as unknown as string }).getMe()),
    ],
    [
      'a bad option next to the secret',
      'TypeError',
      async () => {
        try {
          newClient({ timeoutMs: -1 });
        } catch (error) {
          return error;
        }
        throw new Error('expected a TypeError');
      },
    ],
    [
      'token store failing to keep the token (Redis OOM)',
      'RedisStoreError',
      async () => {
        const admin = await newRedis();
        await admin.call('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
        await admin.call('CONFIG', 'SET', 'maxmemory', '1');
        try {
          const store = new RedisTokenStore({ client: await newRedis(), commandTimeoutMs: 2_000 });
          // the client bypasses a store that fails, so its call succeeds ...
          const c = newClient({ tokenStore: store });
          await c.getMe();
          // ... and the store's own error, holding the command that carried the token, must not show it
          const accessToken = await c.getAccessToken();
          return await rejection(store.set('leak-check', { accessToken, expiresAt: Date.now() + 60_000 }));
        } finally {
          await admin.call('CONFIG', 'SET', 'maxmemory', '0');
        }
      },
    ],
  ];

  it.each(clientPaths)('client: %s', async (_name, expectedName, run) => {
    const error = await run();
    expect((error as Error).name).toBe(expectedName);
    if (expectedName !== 'TypeError' && expectedName !== 'AbortError') expect(error).toBeInstanceOf(CheckoutError);
    expectNoSecret(printable(error), `the ${expectedName}`);
  });

  // A 200 from POST /auth/token that holds an accessToken but fails TokenResponseSchema (here
  // `expiresIn: "soon"`): the ResponseValidationError must not carry the token in its body.
  it('client: exchange body with a token that fails validation', async () => {
    mode.exchange = 'bad-with-token';
    const error = await rejection(newClient().getMe());
    expect((error as Error).name).toBe('ResponseValidationError');
    expectNoSecret(printable(error), 'the ResponseValidationError');
  });

  describe('webhooks', () => {
    const entries: WebhookLogEntry[] = [];
    const logger = {
      info: (entry: WebhookLogEntry) => entries.push(entry),
      warn: (entry: WebhookLogEntry) => entries.push(entry),
      error: (entry: WebhookLogEntry) => entries.push(entry),
    };
    const event = (eventId: string) => JSON.stringify({ eventId, type: 'otc.trade.settled', tradeId: 't-1' });

    async function deliver(options: {
      store?: EventStore;
      body?: string;
      signature?: string | null;
      onEvent?: () => Promise<void> | void;
      responseTimeoutMs?: number;
    }) {
      const client = newClient();
      await warm(client);
      const handler = createWebhookHandler({
        secret: [`whsec-old-${randomUUID()}`, WEBHOOK_SECRET],
        client,
        onEvent: options.onEvent ?? (() => undefined),
        resolveOrderExternalId: () => 'o-1',
        confirm: { attempts: 1, delayMs: 0 },
        logger,
        ...(options.store ? { store: options.store } : {}),
        ...(options.responseTimeoutMs ? { responseTimeoutMs: options.responseTimeoutMs } : {}),
      });
      const body = options.body ?? event(`e-${randomUUID()}`);
      const signature = options.signature === undefined ? await signPayload(body, WEBHOOK_SECRET) : options.signature;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (signature !== null) headers['x-provider-signature'] = signature;
      const response = await handler.handle(new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers }));
      await handler.drain();
      const text = await response.text();
      expectNoSecret(`${response.status} ${text} ${inspect(response.headers)}`, 'the handler response');
      expectNoSecret(printable(handler), 'the handler object');
      return response.status;
    }

    it.each([
      ['bad signature', 401, () => deliver({ signature: 'sha256=' + '0'.repeat(64) })],
      [
        'signature under another secret',
        401,
        async () => deliver({ signature: await signPayload(event('e-x'), `whsec-other-${randomUUID()}`) }),
      ],
      ['missing signature', 401, () => deliver({ signature: null })],
      ['parse failure (signed, not JSON)', 400, () => deliver({ body: `{"eventId": "${WEBHOOK_SECRET.slice(0, 3)}` })],
      ['parse failure (signed, no eventId)', 400, () => deliver({ body: JSON.stringify({ type: 'otc.trade.settled' }) })],
      [
        'onEvent throws',
        500,
        () =>
          deliver({
            onEvent: () => {
              throw new Error('partner bug');
            },
          }),
      ],
      [
        'confirm read fails (500)',
        500,
        () => {
          mode.business = 500;
          return deliver({});
        },
      ],
      [
        'confirm read 401 twice',
        500,
        () => {
          mode.business = 401;
          return deliver({});
        },
      ],
      [
        'confirm read times out',
        500,
        () => {
          mode.business = 'slow';
          return deliver({});
        },
      ],
      [
        'responseTimeoutMs passes',
        503,
        () => deliver({ onEvent: () => new Promise<void>((resolve) => setTimeout(resolve, 80)), responseTimeoutMs: 20 }),
      ],
      [
        'Redis store down (connection refused)',
        503,
        async () =>
          deliver({
            store: new RedisEventStore({ client: await newRedis(closedPortUrl.replace('http', 'redis')), commandTimeoutMs: 500 }),
          }),
      ],
      [
        'Redis store failing (OOM)',
        503,
        async () => {
          const admin = await newRedis();
          await admin.call('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
          await admin.call('CONFIG', 'SET', 'maxmemory', '1');
          try {
            return await deliver({ store: new RedisEventStore({ client: await newRedis(), commandTimeoutMs: 2_000 }) });
          } finally {
            await admin.call('CONFIG', 'SET', 'maxmemory', '0');
          }
        },
      ],
    ])('handler: %s answers %i and logs no secret', async (_name, status, run) => {
      entries.length = 0;
      expect(await run()).toBe(status);
      expect(entries.length).toBeGreaterThan(0);
      expectNoSecret(entries.map(printable).join('\n'), 'a logger entry');
      logged.push(...entries);
    });

    it('parseEvent failures carry no part of the body', () => {
      for (const body of [
        `not json ${WEBHOOK_SECRET}`,
        JSON.stringify({ eventId: '', type: WEBHOOK_SECRET }),
        JSON.stringify([PARTNER_SECRET]),
      ]) {
        let error: unknown;
        try {
          parseEvent(body);
        } catch (e) {
          error = e;
        }
        expect((error as Error).name).toBe('WebhookPayloadError');
        expectNoSecret(printable(error), 'the WebhookPayloadError');
      }
    });

    it('argument errors of verifySignature and createWebhookHandler carry no secret', async () => {
      const errors: unknown[] = [];
      const attempts: (() => unknown)[] = [
        () => verifySignature({ payload: 42 as unknown as string, signature: 'sha256=00', secret: WEBHOOK_SECRET }),
        () => verifySignature({ payload: '{}', signature: 'sha256=00', secret: [WEBHOOK_SECRET, 42 as unknown as string] }),
        () => createWebhookHandler({ secret: WEBHOOK_SECRET, client: {}, onEvent: () => undefined }),
        () => createWebhookHandler({ secret: [WEBHOOK_SECRET, ''], client: newClient(), onEvent: () => undefined }),
        () => createWebhookHandler({ secret: WEBHOOK_SECRET, client: newClient(), onEvent: () => undefined, leaseMs: -1 }),
      ];
      for (const attempt of attempts) {
        try {
          await attempt();
        } catch (error) {
          errors.push(error);
        }
      }
      expect(errors.length).toBeGreaterThanOrEqual(4);
      for (const error of errors) {
        expect(error).toBeInstanceOf(TypeError);
        expectNoSecret(printable(error), 'a TypeError');
      }
    });
  });

  it('no client, printed any way, shows the secret or a token', () => {
    expect(clients.length).toBeGreaterThan(10);
    expect(issued.length).toBeGreaterThan(10);
    for (const client of clients) {
      expectNoSecret(printable(client), 'a CheckoutClient');
      expectNoSecret(inspect(Object.getOwnPropertyDescriptors(client), { showHidden: true, depth: Infinity }), 'the client own properties');
    }
  });

  it('nothing the SDK wrote to the console holds a secret', () => {
    expectNoSecret(consoleOutput.map(printable).join('\n'), 'console output');
  });
});
