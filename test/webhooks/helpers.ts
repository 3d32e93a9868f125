import { CheckoutClient } from 'checkout-partner-sdk';
import {
  createWebhookHandler,
  MemoryEventStore,
  signPayload,
  type EventStore,
  type WebhookContext,
  type WebhookHandler,
  type WebhookHandlerOptions,
} from 'checkout-partner-sdk/webhooks';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import { memoryLogger } from '../helpers/memory-logger.js';

export const ORIGIN = 'https://checkout.test';
export const API = `${ORIGIN}/api/v1/partner-api`;
export const SECRET = 'whsec_test_0123456789';

/** A real CheckoutClient aimed at the msw checkout service below. */
export function makeClient(): CheckoutClient {
  return new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'partner-1', partnerSecret: 'partner-secret', maxRetries: 0 });
}

/**
 * An msw checkout service: the token exchange, and the order and withdrawal GETs answered from
 * `orders` / `withdrawals` (a function entry answers per read, e.g. a status that changes).
 * `reads` counts the GETs per path.
 */
export function mockCheckout(options: { bypassLoopback?: boolean } = {}) {
  const state = {
    orders: new Map<string, object | ((n: number) => Response | object)>(),
    withdrawals: new Map<string, object | ((n: number) => Response | object)>(),
    reads: new Map<string, number>(),
  };
  const answer = (table: Map<string, object | ((n: number) => Response | object)>, id: string, path: string) => {
    const n = (state.reads.get(path) ?? 0) + 1;
    state.reads.set(path, n);
    const entry = table.get(id);
    if (entry === undefined) return HttpResponse.json({ message: 'not found' }, { status: 404 });
    const value: Response | object = typeof entry === 'function' ? entry(n) : entry;
    return value instanceof Response ? value : HttpResponse.json(value);
  };
  const server = setupServer(
    http.post(`${API}/auth/token`, () => HttpResponse.json({ accessToken: 'tok-1', tokenType: 'Bearer', expiresIn: 3600 })),
    http.get(`${API}/orders/by-external-id/:id`, ({ params, request }) =>
      answer(state.orders, String(params['id']), new URL(request.url).pathname),
    ),
    http.get(`${API}/withdrawals/by-external-id/:id`, ({ params, request }) =>
      answer(state.withdrawals, String(params['id']), new URL(request.url).pathname),
    ),
  );
  beforeAll(() => server.listen({ onUnhandledFrame: options.bypassLoopback ? 'bypass' : 'error' }));
  afterEach(() => {
    server.resetHandlers();
    state.orders.clear();
    state.withdrawals.clear();
    state.reads.clear();
  });
  afterAll(() => server.close());
  return { server, state };
}

/** A signed delivery of `event` as the provider sends it. */
export async function delivery(
  event: unknown,
  options: { secret?: string; signature?: string | null; header?: string; url?: string } = {},
): Promise<Request> {
  const body = typeof event === 'string' ? event : JSON.stringify(event);
  const signature = options.signature === undefined ? await signPayload(body, options.secret ?? SECRET) : options.signature;
  const headers = new Headers({ 'content-type': 'application/json' });
  if (signature !== null) headers.set(options.header ?? 'x-provider-signature', signature);
  return new Request(options.url ?? 'https://partner.test/webhooks', { method: 'POST', headers, body });
}

export { memoryLogger };

/** A promise and its resolve function, to hold a handler until the test lets it go. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A store that records every call before passing it to a real MemoryEventStore. */
export function recordingStore(inner: EventStore = new MemoryEventStore()) {
  const calls: string[] = [];
  const store: EventStore = {
    claim: (eventId, leaseMs) => {
      calls.push(`claim:${eventId}`);
      return inner.claim(eventId, leaseMs);
    },
    complete: (eventId, lease) => {
      calls.push(`complete:${eventId}`);
      return inner.complete(eventId, lease);
    },
    release: (eventId, lease) => {
      calls.push(`release:${eventId}`);
      return inner.release(eventId, lease);
    },
  };
  return { calls, store };
}

/**
 * Lets the work in flight run until `condition` holds, never moving the clock: each turn runs the
 * fake timers due now and the promise callbacks they release (`vi.advanceTimersByTimeAsync(0)`),
 * or one real macrotask without fake timers. A delivery's steps are promise chains (on the Node
 * entry the HMAC is synchronous, off the thread pool), so the turns it takes do not depend on the
 * machine's load; the bound only turns a missed condition into a failure.
 */
export async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1_000; turn += 1) {
    if (condition()) return;
    if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
    else await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition not reached within 1,000 turns');
}

/** A handler with a recording store and an onEvent that records its contexts; `overrides` replace options. */
export function setupHandler(overrides: Partial<WebhookHandlerOptions> = {}) {
  const seen: WebhookContext[] = [];
  const { calls, store } = recordingStore();
  const { entries, logger } = memoryLogger();
  const handler = createWebhookHandler({
    secret: SECRET,
    client: makeClient(),
    store,
    logger,
    confirm: { attempts: 3, delayMs: 500 },
    // long enough that fake clocks moved by deliverWithTimers never reach it; timeouts have their own tests
    responseTimeoutMs: 60_000,
    resolveOrderExternalId: (event) => `order-for-${String(event.tradeId ?? event['orderRef'])}`,
    resolveWithdrawalExternalId: (event) => (typeof event['withdrawalRef'] === 'string' ? event['withdrawalRef'] : undefined),
    onEvent: (context) => void seen.push(context),
    ...overrides,
  });
  return { handler, seen, calls, entries };
}

/**
 * Delivers with fake timers, moving the clock 10 ms per turn of the event loop (so real I/O runs
 * in between), so confirm delays pass without waiting. At most 2 000 turns: 20 s of fake time,
 * under the 60 s response timeout `setupHandler` uses and the client's 30 s request timeout.
 */
export async function deliverWithTimers(handler: WebhookHandler, request: Request): Promise<Response> {
  const pending = handler.handle(request);
  let done = false;
  void pending.finally(() => (done = true));
  for (let turn = 0; turn < 2_000 && !done; turn += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(10);
  }
  if (!done) throw new Error('the delivery did not finish within 2000 event-loop turns');
  return pending;
}
