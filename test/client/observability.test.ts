import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  CheckoutClient,
  NotFoundError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  type LogEntry,
} from 'checkout-partner-sdk';
import { CLIENT_TIMERS, reached, realTurn, settled } from '../helpers/fake-time.js';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout, order } from './helpers.js';

type ClientLogEntry = Extract<LogEntry, { event: `client.${string}` }>;

// Observable calls: a logger, CHECKOUT_LOG=debug, `attempts` on errors, the requestId of a
// successful read (issue 11, item 4).

const { server, state } = mockCheckout();
const newClient = (extra: object = {}) =>
  new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET, ...extra });
const ORDER_PATH = `${API}/orders/by-external-id/:id`;
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** Answers `statuses` in turn (with `retry-after: 0` and a request id), then 200 with the order. */
function answers(statuses: number[]) {
  let calls = 0;
  server.use(
    http.get(ORDER_PATH, () => {
      const status = statuses[calls];
      calls += 1;
      const headers = { 'retry-after': '0', 'x-request-id': `req-${calls}` };
      return status === undefined
        ? HttpResponse.json(order('o-1'), { headers })
        : HttpResponse.json({ message: 'no' }, { status, headers });
    }),
  );
  return () => calls;
}

describe('logger', () => {
  it('gets one entry per attempt, exchange and retry, with no secret or token', async () => {
    answers([503]);
    const entries: ClientLogEntry[] = [];
    await newClient({ logger: (entry: ClientLogEntry) => entries.push(entry) }).getOrderByExternalId('o-1');
    expect(entries.map((e) => [e.event, e.method, e.path, e.status, e.attempt, e.requestId])).toEqual([
      ['client.attempt', 'POST', '/auth/token', 200, 1, undefined],
      ['client.exchange', 'POST', '/auth/token', 200, 1, undefined],
      ['client.attempt', 'GET', '/orders/by-external-id/o-1', 503, 1, 'req-1'],
      ['client.retry', 'GET', '/orders/by-external-id/o-1', 503, 2, undefined],
      ['client.attempt', 'GET', '/orders/by-external-id/o-1', 200, 2, 'req-2'],
    ]);
    for (const entry of entries) expect(entry.ms).toBeGreaterThanOrEqual(0);
    expect(entries[3]?.retryInMs).toBeGreaterThanOrEqual(0);
    const text = JSON.stringify(entries);
    expect(text).not.toContain(PARTNER_SECRET);
    expect(text).not.toContain('tok-1');
  });

  it('names what ended an attempt without a response', async () => {
    server.use(http.get(ORDER_PATH, () => HttpResponse.error()));
    const entries: ClientLogEntry[] = [];
    await newClient({ maxRetries: 0, logger: (entry: ClientLogEntry) => entries.push(entry) })
      .getOrderByExternalId('o-1')
      .catch(() => undefined);
    expect(entries.at(-1)).toMatchObject({
      event: 'client.attempt',
      status: undefined,
      error: { name: 'ConnectionError', message: expect.stringMatching(/^Failed to fetch|fetch failed/) },
    });
  });

  it("an attempt's error is a LogError, like the webhook handler's and the tracker's, and never quotes what fetch threw", async () => {
    const entries: ClientLogEntry[] = [];
    const client = newClient({
      maxRetries: 0,
      logger: (entry: ClientLogEntry) => entries.push(entry),
      fetch: async (input: Request) => {
        throw new TypeError(
          `Headers.append: "${input.headers.get('authorization') ?? input.headers.get('x-partner-secret') ?? ''}" is an invalid header value`,
        );
      },
    });
    await client.getOrderByExternalId('o-1').catch(() => undefined);
    expect(entries.at(-1)).toEqual(
      expect.objectContaining({
        event: 'client.exchange',
        error: { name: 'ConnectionError', message: 'POST /auth/token failed before any response arrived (TypeError)' },
      }),
    );
    expect(entries[0]?.error).toEqual({ name: 'ConnectionError', message: 'failed before any response arrived (TypeError)' });
    expect(JSON.stringify(entries)).not.toContain(PARTNER_SECRET);
  });

  it('takes a console-like object: successes to debug, exchanges to info, failures and retries to warn', async () => {
    answers([500]);
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    await newClient({ logger }).getOrderByExternalId('o-1');
    expect(logger.info.mock.calls.map(([e]) => (e as ClientLogEntry).event)).toEqual(['client.exchange']);
    expect(logger.warn.mock.calls.map(([e]) => [(e as ClientLogEntry).event, (e as ClientLogEntry).status])).toEqual([
      ['client.attempt', 500],
      ['client.retry', 500],
    ]);
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.debug.mock.calls.map(([e]) => [(e as ClientLogEntry).path, (e as ClientLogEntry).status])).toEqual([
      ['/auth/token', 200],
      ['/orders/by-external-id/o-1', 200],
    ]);
  });

  it('a logger that throws never breaks a call', async () => {
    answers([]);
    const client = newClient({
      logger: () => {
        throw new Error('broken logger');
      },
    });
    expect(await client.getOrderByExternalId('o-1')).toEqual(order('o-1'));
  });

  it('an async logger that rejects (function or console-like) leaves no unhandled rejection behind', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const rejecting = async () => {
        throw new Error('log sink down');
      };
      for (const logger of [rejecting, { debug: rejecting, info: rejecting, warn: rejecting, error: rejecting }]) {
        answers([]);
        expect(await newClient({ logger }).getOrderByExternalId('o-1')).toEqual(order('o-1'));
      }
      // unhandled rejections are reported after the microtask queue drains, before the next turn
      await realTurn();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it.each([42, 'console', true, null, {}, { debug: () => undefined, info: () => undefined, warn: () => undefined }])(
    'refuses logger %j with a TypeError',
    (logger) => {
      expect(() => newClient({ logger: logger as never })).toThrow(
        /logger must be a function, an object with info, warn and error methods and an optional debug \(console, pino\), or false/,
      );
    },
  );

  it('takes an object without debug (its successful attempts are skipped), and logger: false silences CHECKOUT_LOG=debug', async () => {
    answers([]);
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    await newClient({ logger }).getOrderByExternalId('o-1');
    expect(logger.info).toHaveBeenCalledOnce();
    expect(logger.warn).not.toHaveBeenCalled();
    vi.stubEnv('CHECKOUT_LOG', 'debug');
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    answers([]);
    await newClient({ logger: false }).getOrderByExternalId('o-1');
    expect(lines).toEqual([]);
  });

  it('CHECKOUT_LOG=debug prints one line per entry on stderr when no logger is given', async () => {
    vi.stubEnv('CHECKOUT_LOG', 'debug');
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    answers([]);
    await newClient().getOrderByExternalId('o-1');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(
      /^checkout-partner-sdk attempt GET \/orders\/by-external-id\/o-1 status=200 ms=\d+ attempt=1 requestId="req-1"$/,
    );
    expect(lines.join('\n')).not.toContain(PARTNER_SECRET);
  });

  it.each(['DEBUG', 'Debug', ' debug\n'])('CHECKOUT_LOG=%j turns the switch on too (case and spaces do not matter)', async (value) => {
    vi.stubEnv('CHECKOUT_LOG', value);
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    answers([]);
    await newClient().getOrderByExternalId('o-1');
    expect(lines).toHaveLength(3);
  });

  it.each(['info', '1', 'true', 'off'])('CHECKOUT_LOG=%j stays silent', async (value) => {
    vi.stubEnv('CHECKOUT_LOG', value);
    const spy = vi.spyOn(console, 'error');
    answers([]);
    await newClient().getOrderByExternalId('o-1');
    expect(spy).not.toHaveBeenCalled();
  });

  it('stays silent without a logger or the switch', async () => {
    const spy = vi.spyOn(console, 'error');
    answers([]);
    await newClient().getOrderByExternalId('o-1');
    expect(spy).not.toHaveBeenCalled();
  });
});

describe('attempts on every error', () => {
  it('counts the retries', async () => {
    answers([503, 503, 503]);
    const error = await newClient()
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ attempts: 3, requestId: 'req-3' });
  });

  it('is 1 for a status that is not retried, and for a body that does not match', async () => {
    answers([404]);
    await expect(newClient().getOrderByExternalId('o-1')).rejects.toSatisfy((e) => e instanceof NotFoundError && e.attempts === 1);
    server.use(http.get(ORDER_PATH, () => HttpResponse.json({ nope: true })));
    await expect(newClient().getOrderByExternalId('o-1')).rejects.toSatisfy(
      (e) => e instanceof ResponseValidationError && e.attempts === 1,
    );
  });

  it('counts the request re-sent after a 401', async () => {
    server.use(http.get(ORDER_PATH, () => new HttpResponse(null, { status: 401 })));
    const error = await newClient()
      .getOrderByExternalId('o-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ attempts: 2 });
  });

  it('is on a call timeout too', async () => {
    server.use(http.get(ORDER_PATH, () => new Promise<Response>(() => undefined)));
    vi.useFakeTimers(CLIENT_TIMERS);
    const pending = newClient({ maxRetries: 0 })
      .getOrderByExternalId('o-1', { timeoutMs: 100 })
      .catch((e: unknown) => e);
    await reached(() => state.seen.some((r) => r.path.includes('/orders/')), 'the read sent');
    await vi.advanceTimersByTimeAsync(100);
    const error = await settled(pending, 'the call did not end at timeoutMs');
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ attempts: 1 });
  });
});

describe('withResponse()', () => {
  it('gives the record with its status, headers, requestId and attempts', async () => {
    answers([502]);
    const { data, response } = await newClient().withResponse().getOrderByExternalId('o-1');
    expect(data).toEqual(order('o-1'));
    expect(response).toMatchObject({ status: 200, requestId: 'req-2', attempts: 2 });
    expect(response.headers.get('content-type')).toMatch(/json/);
  });

  it('works for every read and request()', async () => {
    server.use(
      http.get(`${API}/auth/me`, () => HttpResponse.json({ partnerId: 'p' }, { headers: { 'x-request-id': 'me-1' } })),
      http.get(`${API}/withdrawals/by-external-id/:id`, () =>
        HttpResponse.json({ externalId: 'w-1', status: 'Completed' }, { headers: { 'x-request-id': 'w-1' } }),
      ),
      http.post(`${API}/orders/o-1/payment`, () => HttpResponse.json({ ok: true }, { headers: { 'x-request-id': 'pay-1' } })),
    );
    const reads = newClient().withResponse();
    expect((await reads.getMe()).response.requestId).toBe('me-1');
    expect((await reads.getWithdrawalByExternalId('w-1')).response.requestId).toBe('w-1');
    expect(await reads.request('POST', '/orders/o-1/payment', { json: {} })).toMatchObject({
      data: { ok: true },
      response: { requestId: 'pay-1' },
    });
    await expect(reads.getOrderByExternalId('')).rejects.toThrow(TypeError);
    expect(state.seen.filter((r) => r.path.endsWith('/auth/token'))).toHaveLength(1);
  });
});

describe('CHECKOUT_LOG_FORMAT=json', () => {
  it('writes each CHECKOUT_LOG=debug entry as one JSON object on one line, never the secret or the token', async () => {
    vi.stubEnv('CHECKOUT_LOG', 'debug');
    vi.stubEnv('CHECKOUT_LOG_FORMAT', 'JSON');
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    answers([503]);
    const client = newClient();
    await client.getOrderByExternalId('o-1');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const entries = lines.map((line) => {
      expect(line).not.toContain('\n');
      return JSON.parse(line) as Record<string, unknown>;
    });
    expect(entries.map((entry) => entry['event'])).toEqual(
      ['client.attempt', 'client.exchange', 'client.attempt', 'client.retry', 'client.attempt'].slice(-entries.length),
    );
    expect(entries.at(-1)).toMatchObject({
      level: 'debug',
      logger: 'checkout-partner-sdk',
      event: 'client.attempt',
      method: 'GET',
      path: '/orders/by-external-id/o-1',
      status: 200,
      attempt: 2,
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(entries.find((entry) => entry['status'] === 503)).toMatchObject({ level: 'warn' });
    const all = lines.join('\n');
    expect(all).not.toContain(PARTNER_SECRET);
    expect(all).not.toContain(await client.getAccessToken());
  });
});
