import { HttpResponse } from 'msw';
import { createWebhookHandler, type EventStore, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { delivery, makeClient, mockCheckout, SECRET, until } from '../helpers.js';
import type { LogEntry } from 'checkout-partner-sdk';

type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;
/** A logger that keeps the delivery entries (not the warnings) in `entries`. */
const deliveriesInto = (entries: WebhookLogEntry[]) => (entry: LogEntry) => {
  if (entry.event === 'webhook.delivery') entries.push(entry);
};

// API.md "Failures are visible by default": without a logger, each failed delivery writes one
// line to stderr; `logger: false` silences it; CHECKOUT_LOG=debug prints every delivery. Logger
// entries carry `error` as a plain object, never an Error that JSON-serialises to `{}`.

const { state } = mockCheckout();
const ORDER = { externalId: 'order-1', settlement: { status: 'Settled', tradeId: 't-1' } };
const EVENT = { eventId: 'evt-visible', type: 'otc.trade.settled', tradeId: 't-1', pan: 'BODY-ONLY-FIELD' };

let stderr: MockInstance<typeof console.error>;
beforeEach(() => {
  stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  stderr.mockRestore();
  vi.unstubAllEnvs();
});

// the memory-store notice (test/internal/memory-notice.test.ts) is not a failure line
const lines = () => stderr.mock.calls.map((call) => call.map(String).join(' ')).filter((line) => !line.includes(' notice memory-store: '));

function handlerWith(overrides: Partial<WebhookHandlerOptions> = {}) {
  return createWebhookHandler({
    secret: SECRET,
    client: makeClient(),
    resolveOrderExternalId: () => 'order-1',
    confirm: { attempts: 1 },
    onEvent: () => {},
    ...overrides,
  });
}

describe('without a logger, a failed delivery writes one line to stderr', () => {
  it('onEvent threw: one line with the eventId, type, outcome and the message, never the secret or the body', async () => {
    state.orders.set('order-1', ORDER);
    const handler = handlerWith({ onEvent: () => Promise.reject(new Error('ledger is down')) });
    expect((await handler.handle(await delivery(EVENT))).status).toBe(500);
    expect(lines()).toHaveLength(1);
    const [line] = lines();
    expect(line).toMatch(
      /^checkout-partner-sdk webhook failed status=500 eventId="evt-visible" type="otc.trade.settled" ms=\d+ error=Error "ledger is down"$/,
    );
    expect(line).not.toContain(SECRET);
    expect(line).not.toContain('BODY-ONLY-FIELD');
  });

  it('a status read failed: the line names the error and its status', async () => {
    state.orders.set('order-1', () => HttpResponse.json({ message: 'upstream' }, { status: 500 }));
    const handler = handlerWith({ client: makeClient() });
    expect((await handler.handle(await delivery(EVENT))).status).toBe(500);
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatch(/webhook failed status=500 .*error=ServerError ".*upstream.*" status=500$/);
  });

  it('the store failed: one store-unavailable line', async () => {
    const store: EventStore = {
      claim: () => Promise.reject(new Error('redis: connection refused')),
      complete: async () => {},
      release: async () => {},
    };
    const handler = handlerWith({ store });
    expect((await handler.handle(await delivery(EVENT))).status).toBe(503);
    expect(lines()).toEqual([
      expect.stringMatching(
        /^checkout-partner-sdk webhook store-unavailable status=503 eventId="evt-visible" .*error=Error "redis: connection refused"$/,
      ),
    ]);
  });

  it('a handled delivery, a duplicate or a refused one writes nothing', async () => {
    state.orders.set('order-1', ORDER);
    const handler = handlerWith();
    expect((await handler.handle(await delivery(EVENT))).status).toBe(200);
    expect((await handler.handle(await delivery(EVENT))).status).toBe(200);
    expect((await handler.handle(await delivery(EVENT, { signature: 'sha256=' + '0'.repeat(64) }))).status).toBe(401);
    expect(lines()).toEqual([]);
  });

  it('an event type or an error message with CR/LF/ESC stays one escaped line', async () => {
    const handler = handlerWith({ onEvent: () => Promise.reject(new Error('boom\r\nfake line\u001b[2J')) });
    await handler.handle(await delivery({ eventId: 'e\n2', type: 'custom.type\r\nINFO forged' }));
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).not.toMatch(/[\r\n\u001b]/);
    expect(lines()[0]).toContain('eventId="e\\n2" type="custom.type\\r\\nINFO forged"');
    expect(lines()[0]).toContain('error=Error "boom\\r\\nfake line\\u001b[2J"');
  });
});

describe('a delivery that times out (503) is a failure too', () => {
  afterEach(() => void vi.useRealTimers());

  /** Delivers with a fake clock moved past responseTimeoutMs only once onEvent runs (so the event is known by then). */
  async function deliverPastDeadline(handler: ReturnType<typeof handlerWith>, event: object, entered: () => boolean): Promise<number> {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const answered = handler.handle(await delivery(event));
    await until(entered);
    await vi.advanceTimersByTimeAsync(1_000);
    return (await answered).status;
  }

  it('an onEvent that never ends: one timeout line at the 503, never silence', async () => {
    let entered = false;
    const handler = handlerWith({ responseTimeoutMs: 1_000, onEvent: () => new Promise<void>(() => void (entered = true)) });
    expect(await deliverPastDeadline(handler, EVENT, () => entered)).toBe(503);
    expect(lines()).toEqual([
      expect.stringMatching(/^checkout-partner-sdk webhook timeout status=503 eventId="evt-visible" type="otc.trade.settled" ms=\d+$/),
    ]);
  });

  it('late work that then succeeds adds nothing; late work that fails adds its one line', async () => {
    // a holder, so each delivery's onEvent leaves its own settle function there
    const gate: { finish?: ((error?: Error) => void) | undefined } = {};
    const pending = () => new Promise<void>((resolve, reject) => (gate.finish = (error) => (error ? reject(error) : resolve())));
    const settle = (error?: Error) => gate.finish?.(error);
    const handler = handlerWith({ responseTimeoutMs: 1_000, onEvent: pending });
    expect(await deliverPastDeadline(handler, EVENT, () => gate.finish !== undefined)).toBe(503);
    settle();
    await handler.drain();
    expect(lines()).toHaveLength(1);
    gate.finish = undefined;
    const other = handlerWith({ responseTimeoutMs: 1_000, onEvent: pending });
    expect(await deliverPastDeadline(other, { ...EVENT, eventId: 'evt-late' }, () => gate.finish !== undefined)).toBe(503);
    settle(new Error('late failure'));
    await other.drain();
    expect(lines().slice(1)).toEqual([
      expect.stringMatching(/^checkout-partner-sdk webhook timeout status=503 eventId="evt-late"/),
      expect.stringMatching(/^checkout-partner-sdk webhook failed status=500 eventId="evt-late" .* late error=Error "late failure"$/),
    ]);
  });

  it('a body that has not arrived by the deadline (a slow sender, anyone) writes nothing', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const handler = handlerWith({ responseTimeoutMs: 50 });
    const stalled = new Request('https://partner.test/webhooks', {
      method: 'POST',
      body: new ReadableStream({ pull: () => new Promise(() => undefined) }),
      duplex: 'half',
    } as RequestInit);
    const answered = handler.handle(stalled);
    await until(() => vi.getTimerCount() > 0); // the response deadline set
    await vi.advanceTimersByTimeAsync(50);
    expect((await answered).status).toBe(503);
    await handler.drain();
    expect(lines()).toEqual([]);
  });
});

describe('logger: false and CHECKOUT_LOG=debug', () => {
  it('logger: false writes nothing, even for a failure', async () => {
    const handler = handlerWith({ logger: false, onEvent: () => Promise.reject(new Error('quiet')) });
    expect((await handler.handle(await delivery(EVENT))).status).toBe(500);
    expect(lines()).toEqual([]);
  });

  it.each(['debug', 'DEBUG', ' Debug '])('CHECKOUT_LOG=%j writes a line for every delivery', async (value) => {
    vi.stubEnv('CHECKOUT_LOG', value);
    state.orders.set('order-1', ORDER);
    const handler = handlerWith();
    await handler.handle(await delivery(EVENT));
    await handler.handle(await delivery(EVENT));
    await handler.handle(await delivery(EVENT, { signature: null }));
    // the client's own debug lines (token exchange, the order read) come too: only the handler's here
    expect(lines().filter((line) => line.startsWith('checkout-partner-sdk webhook'))).toEqual([
      expect.stringMatching(
        /^checkout-partner-sdk webhook handled status=200 eventId="evt-visible" type="otc.trade.settled" ms=\d+ confirmed=true$/,
      ),
      expect.stringMatching(/^checkout-partner-sdk webhook duplicate status=200 eventId="evt-visible"/),
      expect.stringMatching(/^checkout-partner-sdk webhook bad-signature status=401 ms=\d+$/),
    ]);
  });

  it('a logger given replaces the stderr line', async () => {
    const entries: WebhookLogEntry[] = [];
    const handler = handlerWith({ logger: deliveriesInto(entries), onEvent: () => Promise.reject(new Error('to the logger')) });
    await handler.handle(await delivery(EVENT));
    expect(entries).toHaveLength(1);
    expect(lines()).toEqual([]);
  });
});

describe('logger entries carry error as a plain object', () => {
  it('a JSON logger shows name and message of a thrown Error, not {}', async () => {
    const json: string[] = [];
    const logger = { info: vi.fn(), warn: vi.fn(), error: (entry: WebhookLogEntry) => void json.push(JSON.stringify(entry)) };
    const handler = handlerWith({ logger, onEvent: () => Promise.reject(new TypeError('cannot read x')) });
    await handler.handle(await delivery(EVENT));
    expect(json).toHaveLength(1);
    const parsed = JSON.parse(json[0]!) as { error: Record<string, unknown> };
    expect(parsed.error).toMatchObject({ name: 'TypeError', message: 'cannot read x' });
    expect(parsed.error['stack']).toEqual(expect.stringContaining('cannot read x'));
  });

  it('an ApiError from the status read keeps its status and requestId', async () => {
    state.orders.set('order-1', () => HttpResponse.json({ message: 'busy' }, { status: 503, headers: { 'x-request-id': 'req-9' } }));
    const entries: WebhookLogEntry[] = [];
    const handler = handlerWith({ logger: deliveriesInto(entries) });
    await handler.handle(await delivery(EVENT));
    const error = JSON.parse(JSON.stringify(entries[0]?.error)) as Record<string, unknown>;
    expect(error).toMatchObject({ name: 'ServerError', status: 503, requestId: 'req-9' });
    expect(error['message']).toEqual(expect.stringContaining('busy'));
    expect(Object.getPrototypeOf(entries[0]?.error)).toBe(Object.prototype);
  });

  it('a thrown non-Error and an AggregateError are plain objects too', async () => {
    const entries: WebhookLogEntry[] = [];
    const failing: EventStore = {
      claim: async () => ({ status: 'claimed', lease: 1 }),
      complete: async () => {},
      release: () => Promise.reject(new Error('release failed')),
    };
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a partner's onEvent rejecting with a non-Error is the case under test
    const handler = handlerWith({ logger: deliveriesInto(entries), store: failing, onEvent: () => Promise.reject('a string') });
    await handler.handle(await delivery(EVENT));
    expect(JSON.parse(JSON.stringify(entries[0]?.error))).toMatchObject({
      name: 'AggregateError',
      errors: [
        { name: 'NonError', message: 'a string' },
        { name: 'Error', message: 'release failed' },
      ],
    });
  });
});

describe('CHECKOUT_LOG_FORMAT=json', () => {
  it('a failed delivery is one JSON object on one line: level, outcome, eventId, the error; never the secret or the body', async () => {
    vi.stubEnv('CHECKOUT_LOG_FORMAT', 'json');
    state.orders.set('order-1', ORDER);
    const handler = handlerWith({ onEvent: () => Promise.reject(new Error('ledger is down\n{"forged":true}')) });
    expect((await handler.handle(await delivery(EVENT))).status).toBe(500);
    expect(lines()).toHaveLength(1);
    const [line = ''] = lines();
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      time: expect.any(String),
      level: 'error',
      logger: 'checkout-partner-sdk',
      event: 'webhook.delivery',
      outcome: 'failed',
      status: 500,
      ms: expect.any(Number),
      eventId: 'evt-visible',
      type: 'otc.trade.settled',
      error: { name: 'Error', message: 'ledger is down\n{"forged":true}' },
    });
    expect(line).not.toContain(SECRET);
    expect(line).not.toContain('BODY-ONLY-FIELD');
  });

  it('any other value keeps the key=value line', async () => {
    vi.stubEnv('CHECKOUT_LOG_FORMAT', 'logfmt');
    state.orders.set('order-1', ORDER);
    const handler = handlerWith({ onEvent: () => Promise.reject(new Error('ledger is down')) });
    await handler.handle(await delivery(EVENT));
    expect(lines()).toEqual([expect.stringMatching(/^checkout-partner-sdk webhook failed status=500 /)]);
  });
});
