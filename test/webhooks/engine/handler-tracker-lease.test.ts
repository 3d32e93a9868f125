import { createWebhookHandler, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { delivery, makeClient, memoryLogger, recordingStore, SECRET, until } from '../helpers.js';

// A handler with a tracker runs the externalId resolver and tracker.nudge under the same deadline
// as the confirm reads: claimedAt + leaseMs - min(10% of leaseMs, 5 s). Past it, the claim is
// released and nothing is acknowledged, so a redelivery nudges again; drain() is not held.

afterEach(() => {
  vi.useRealTimers();
});

const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
const settled = { eventId: 'evt-tracker-lease', type: 'otc.trade.settled', tradeId: 't-1' };
const withdrawal = { eventId: 'evt-tracker-lease', type: 'pix.withdrawal.settled', withdrawalId: 'w-1' };
const never = <T>() => new Promise<T>(() => undefined); // e.g. a query on a blackholed network

/** leaseMs 10 s: the deadline is 9 s after the claim; the 503 `timeout` answer goes at 1 s. */
function setup(overrides: Partial<WebhookHandlerOptions>) {
  const { calls, store } = recordingStore();
  const { entries, logger } = memoryLogger();
  const nudged: string[] = [];
  const handler = createWebhookHandler({
    secret: SECRET,
    client: makeClient(),
    store,
    logger,
    leaseMs: 10_000,
    responseTimeoutMs: 1_000,
    tracker: { nudge: async (_kind, id) => void nudged.push(id) },
    resolveOrderExternalId: () => 'o-1',
    resolveWithdrawalExternalId: () => 'w-1',
    ...overrides,
  });
  return { handler, calls, entries, nudged };
}

describe('createWebhookHandler({ tracker }): the resolver and the nudge end before the claim lease', () => {
  it.each([
    ['resolveOrderExternalId', settled],
    ['resolveWithdrawalExternalId', withdrawal],
  ] as const)(
    'a %s that never answers: 503, the claim released at the deadline, nothing acknowledged, drain() not held',
    async (resolver, event) => {
      fakeClock();
      let asked = 0;
      const { handler, calls, entries, nudged } = setup({
        [resolver]: () => {
          asked += 1;
          return never<string>();
        },
      });
      const response = handler.handle(await delivery(event));
      await until(() => asked === 1);
      await vi.advanceTimersByTimeAsync(1_000);
      expect((await response).status).toBe(503);
      await vi.advanceTimersByTimeAsync(7_999);
      expect(calls).toEqual(['claim:evt-tracker-lease']);
      await vi.advanceTimersByTimeAsync(1);
      await until(() => calls.includes('release:evt-tracker-lease'));
      await until(() => entries.length === 2);
      expect(entries[0]).toMatchObject({ outcome: 'timeout', status: 503 });
      expect(entries[1]).toMatchObject({ outcome: 'store-unavailable', late: true, error: { name: 'LeaseDeadlineError' } });
      expect(calls).toEqual(['claim:evt-tracker-lease', 'release:evt-tracker-lease']);
      expect(nudged).toEqual([]);
      expect(await handler.drain({ timeoutMs: 1 })).toEqual({ drained: true, inHand: [] });
      expect(vi.getTimerCount()).toBe(0);
    },
  );

  it('a nudge that never answers (a hung status store): the claim released at the deadline, and drain() ends there, not at its own timeout', async () => {
    fakeClock();
    let nudges = 0;
    const { handler, calls, entries } = setup({
      tracker: {
        nudge: () => {
          nudges += 1;
          return nudges === 1 ? never<undefined>() : Promise.resolve();
        },
      },
    });
    const response = handler.handle(await delivery(settled));
    await until(() => nudges === 1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await response).status).toBe(503);
    const drained = handler.drain({ timeoutMs: 60_000 });
    await vi.advanceTimersByTimeAsync(8_000);
    // drained at the deadline (9 s after the claim), long before its own 60 s
    expect(await drained).toEqual({ drained: true, inHand: [] });
    expect(calls).toEqual(['claim:evt-tracker-lease', 'release:evt-tracker-lease']);
    expect(entries.at(-1)).toMatchObject({ outcome: 'store-unavailable', late: true, error: { name: 'LeaseDeadlineError' } });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a nudge that answers in time is acknowledged as before (no timer left behind)', async () => {
    fakeClock();
    const { handler, calls, nudged } = setup({});
    expect((await handler.handle(await delivery(settled))).status).toBe(200);
    expect(nudged).toEqual(['o-1']);
    expect(calls).toEqual(['claim:evt-tracker-lease', 'complete:evt-tracker-lease']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('with onEvent too (the nudge comes before any claim): a hung nudge answers 503 at the same time limit, claims nothing, runs no onEvent', async () => {
    fakeClock();
    let nudges = 0;
    const onEvent = vi.fn();
    const { handler, calls, entries } = setup({
      onEvent,
      responseTimeoutMs: 10_000,
      tracker: {
        nudge: () => {
          nudges += 1;
          return never<undefined>();
        },
      },
    });
    const response = handler.handle(await delivery(settled));
    await until(() => nudges === 1);
    await vi.advanceTimersByTimeAsync(8_999);
    expect(entries).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect((await response).status).toBe(503);
    expect(entries).toMatchObject([{ outcome: 'store-unavailable', error: { name: 'LeaseDeadlineError' } }]);
    expect(calls).toEqual([]);
    expect(onEvent).not.toHaveBeenCalled();
    expect(await handler.drain({ timeoutMs: 1 })).toEqual({ drained: true, inHand: [] });
  });
});
