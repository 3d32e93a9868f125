import { createEvent, signEvent } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MemoryStatusStore, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler, MemoryEventStore } from 'checkout-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAKE_TIMERS, fakeService, recorder } from './helpers.js';
import type { LogEntry } from 'checkout-partner-sdk';

type ProviderEvent = ReturnType<typeof createEvent>;
type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;

const SECRET = 'whsec_tracker_test';
const trackers: StatusTracker[] = [];
// the tracker's timers and clocks are fake: each test moves them (the fake service's `until`/`advance`)
beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(async () => {
  for (const tracker of trackers.splice(0)) {
    const draining = tracker.drain({ timeoutMs: 2_000 });
    await vi.advanceTimersByTimeAsync(2_000);
    await draining;
  }
  vi.useRealTimers();
});

async function post(handler: { handle(request: Request): Promise<Response> }, event: ProviderEvent): Promise<number> {
  const signed = await signEvent(event, SECRET);
  const response = await handler.handle(
    new Request('https://partner.test/webhooks', { method: 'POST', headers: signed.headers, body: signed.body }),
  );
  return response.status;
}

/** A tracker that reads only when nudged within the test (its own schedule is hours apart). */
function setup() {
  const service = fakeService();
  const seen = recorder();
  const store = new MemoryStatusStore();
  const tracker = createStatusTracker({
    client: service.client,
    store,
    onChange: seen.onChange,
    claimIntervalMs: 10,
    schedule: { fastIntervalMs: 50, fastForMs: 1, maxIntervalMs: 3_600_000, nudgeFastForMs: 10_000, jitter: 0 },
  });
  trackers.push(tracker);
  tracker.start();
  const trades = new Map<string, string>();
  const entries: WebhookLogEntry[] = [];
  const handler = createWebhookHandler({
    secret: SECRET,
    client: service.client,
    tracker,
    store: new MemoryEventStore(),
    resolveOrderExternalId: (event) => trades.get(String(event.tradeId)),
    resolveWithdrawalExternalId: (event) => (typeof event['withdrawalId'] === 'string' ? event['withdrawalId'] : undefined),
    logger: (entry) => {
      if (entry.event === 'webhook.delivery') entries.push(entry);
    },
  });
  return { ...service, seen, store, tracker, trades, handler, entries };
}

describe('createWebhookHandler({ tracker })', () => {
  it('answers 200 once the nudge is stored; the change reaches onChange through the tracker, once', async () => {
    const { fake, seen, trades, handler, store, until, advance } = setup();
    fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
    trades.set('t-1', 'o-1');
    const event = createEvent('otc.trade.settled', { tradeId: 't-1' });
    expect(await post(handler, event)).toBe(200);
    expect((await store.get('order', 'o-1'))?.event?.eventId).toBe(event.eventId);
    expect(await until(() => seen.changes.length === 1, 5_000)).toBe(true);
    expect(seen.changes[0]).toMatchObject({
      kind: 'order',
      externalId: 'o-1',
      status: 'Settled',
      source: 'webhook',
      event: { eventId: event.eventId },
    });
    // four more copies: deduped by the event store; and a replay with a new eventId reads, finds the same status
    for (let i = 0; i < 4; i += 1) expect(await post(handler, event)).toBe(200);
    expect(await post(handler, { ...event, eventId: 'replayed-later' })).toBe(200);
    expect(await until(async () => (await store.get('order', 'o-1'))?.watching === false, 3_000)).toBe(true);
    await advance(300);
    expect(seen.changes).toHaveLength(1);
  });

  it('an event that arrives before the read agrees keeps the record read until the change shows', async () => {
    const { fake, seen, trades, handler, until } = setup();
    fake.setOrder({ externalId: 'o-2', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-2' } });
    trades.set('t-2', 'o-2');
    expect(await post(handler, createEvent('otc.trade.settled', { tradeId: 't-2' }))).toBe(200);
    expect(await until(() => seen.changes.length === 1, 5_000)).toBe(true);
    expect(seen.statuses('o-2')).toEqual(['Pending']);
    fake.settleOrder('o-2');
    expect(await until(() => seen.changes.length === 2, 5_000)).toBe(true);
    expect(seen.statuses('o-2')).toEqual(['Pending', 'Settled']);
  });

  it('a nudge that fails releases the claim and answers 503; the redelivery then gets 200', async () => {
    const service = fakeService();
    let fail = true;
    const nudged: unknown[] = [];
    const entries: WebhookLogEntry[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      client: service.client,
      tracker: {
        nudge: async (...args) => {
          if (fail) throw new Error('store down');
          nudged.push(args);
        },
      },
      resolveWithdrawalExternalId: (event) => String(event['withdrawalId']),
      logger: (entry) => {
        if (entry.event === 'webhook.delivery') entries.push(entry);
      },
    });
    const event = createEvent('pix.withdrawal.settled', { withdrawalId: 'w-1' });
    expect(await post(handler, event)).toBe(503);
    fail = false;
    expect(await post(handler, event)).toBe(200);
    expect(nudged).toEqual([['withdrawal', 'w-1', { event: expect.objectContaining({ eventId: event.eventId }) }]]);
    expect(entries.map((e) => e.outcome)).toEqual(['store-unavailable', 'handled']);
  });

  it('onEvent is optional only with a tracker; with both, the event nudges and reaches onEvent', async () => {
    const { client } = fakeService();
    expect(() => createWebhookHandler({ secret: SECRET, client })).toThrow(/onEvent must be a function/);
    expect(() => createWebhookHandler({ secret: SECRET, client, tracker: {} as never })).toThrow(/tracker must be a status tracker/);
    const nudged: string[] = [];
    const events: string[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      client,
      tracker: { nudge: async (_kind, id) => void nudged.push(id) },
      resolveWithdrawalExternalId: () => 'w-2',
      onEvent: ({ event }) => void events.push(event.eventId),
    });
    const event = createEvent('pix.withdrawal.failed', {});
    expect(await post(handler, event)).toBe(200);
    expect(nudged).toEqual(['w-2']);
    expect(events).toEqual([event.eventId]);
  });
});
