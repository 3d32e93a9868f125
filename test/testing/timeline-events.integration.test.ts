import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CheckoutClient } from 'checkout-partner-sdk';
import {
  createEvent,
  createFakeCheckout,
  createProviderSimulator,
  EventDeliveryError,
  playTimeline,
  type FakeServer,
} from 'checkout-partner-sdk/testing';
import { createWebhookHandler, type WebhookHandler } from 'checkout-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectEveryKind, thrown } from '../helpers/kinds.js';

// A timeline that moves the fake's records and sends the provider events announcing the moves, to
// a real webhook receiver that confirms each event by reading the record back.
const SECRET = 'whsec-timeline';
const PARTNER = { partnerId: 'p-1', partnerSecret: 's-1' };
const fake = createFakeCheckout({ partners: [PARTNER] });
let checkout: FakeServer;
let handler: WebhookHandler;
let receiver: http.Server;
let url: string;
const seen: { eventId: string; type: string; confirmed: boolean; status: unknown }[] = [];

beforeEach(async () => {
  fake.reset();
  seen.length = 0;
  checkout = await fake.listen();
  handler = createWebhookHandler({
    secret: SECRET,
    client: new CheckoutClient({ baseUrl: checkout.url, ...PARTNER }),
    resolveOrderExternalId: (event) => (event.tradeId === 't-1' ? 'o-1' : undefined),
    resolveWithdrawalExternalId: () => 'w-1',
    confirm: { attempts: 1, delayMs: 0 },
    logger: false,
    onEvent: ({ event, order, withdrawal, confirmed }) => {
      seen.push({ eventId: event.eventId, type: event.type, confirmed, status: order?.settlement?.status ?? withdrawal?.status });
    },
  });
  receiver = http.createServer((req, res) => handler.node(req, res));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
  fake.setWithdrawal({ externalId: 'w-1', status: 'Processing' });
});
afterEach(async () => {
  await handler.drain({ timeoutMs: 5_000 });
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await checkout.close();
});

describe('playTimeline with events', () => {
  it('delivers each signed event after the status change it announces, in the order listed', async () => {
    const timeline = playTimeline(
      fake,
      [
        { atMs: 0, order: 'o-1', patch: { settlement: { status: 'Settled' } } },
        { atMs: 20, event: { ...createEvent('otc.trade.settled', { tradeId: 't-1' }), eventId: 'e-1' } },
        { atMs: 20, withdrawal: 'w-1', patch: { status: 'Completed' } },
        { atMs: 20, event: { ...createEvent('pix.withdrawal.settled'), eventId: 'e-2' } },
      ],
      { deliver: { url, secret: SECRET } },
    );
    await timeline.done;
    expect(timeline.errors).toEqual([]);
    expect(timeline.applied).toBe(4);
    expect(seen).toEqual([
      { eventId: 'e-1', type: 'otc.trade.settled', confirmed: true, status: 'Settled' },
      { eventId: 'e-2', type: 'pix.withdrawal.settled', confirmed: true, status: 'Completed' },
    ]);
  });

  it('hands the events to a provider simulator', async () => {
    const provider = createProviderSimulator({ url, secret: SECRET, loss: 0, duplicates: 0, maxDelayMs: 0 });
    const timeline = playTimeline(
      fake,
      [
        { atMs: 0, order: 'o-1', patch: { settlement: { status: 'Settled' } } },
        { atMs: 10, event: { ...createEvent('otc.trade.settled', { tradeId: 't-1' }), eventId: 'e-3' } },
      ],
      { provider },
    );
    await timeline.done;
    const stats = await provider.settled();
    expect(stats).toMatchObject({ sent: 1, deliveries: 1 });
    expect(seen).toEqual([{ eventId: 'e-3', type: 'otc.trade.settled', confirmed: true, status: 'Settled' }]);
  });

  it('counts a refused delivery in errors and goes on', async () => {
    const timeline = playTimeline(
      fake,
      [
        { atMs: 0, event: createEvent('otc.trade.settled', { tradeId: 't-1' }) },
        { atMs: 0, order: 'o-1', patch: { settlement: { status: 'Settled' } } },
      ],
      { deliver: { url, secret: 'not-the-secret' } },
    );
    await timeline.done;
    expect(timeline.errors).toHaveLength(1);
    expect(timeline.errors[0]).toBeInstanceOf(EventDeliveryError);
    expect(timeline.applied).toBe(1);
    expect(fake.getOrder('o-1')?.settlement?.status).toBe('Settled');
  });

  it('refuses an event step with nowhere to send it, and bad options, before anything runs', () => {
    const event = createEvent('otc.trade.settled', { tradeId: 't-1' });
    expect(() => playTimeline(fake, [{ atMs: 0, event }])).toThrow(
      /steps\[0\] is an event: pass \{ deliver: \{ url, secret \} \} or \{ provider \}/,
    );
    expect(() => playTimeline(fake, [], { deliver: { url, secret: SECRET }, provider: { send: () => {} } })).toThrow(
      /deliver or provider, not both/,
    );
    expect(() => playTimeline(fake, [], { deliverTo: url } as never)).toThrow(/unknown option "deliverTo"/);
    expect(() => playTimeline(fake, [{ atMs: 0, event: { type: 'x' } as never }], { provider: { send: () => {} } })).toThrow(
      /steps\[0\]\.event must be a provider event/,
    );
  });
});

describe('playTimeline record steps', () => {
  it('takes { kind, id, patch } steps and the 1.1 keyed form alike, in time order', async () => {
    const timeline = playTimeline(fake, [
      { atMs: 0, kind: 'withdrawal', id: 'w-1', patch: { status: 'Failed' } },
      { atMs: 5, kind: 'order', id: 'o-1', patch: { settlement: { status: 'Processing' } } },
      { atMs: 10, order: 'o-1', patch: { settlement: { status: 'Settled' } } },
    ]);
    await timeline.done;
    expect(timeline.errors).toEqual([]);
    expect(timeline.applied).toBe(3);
    expect(fake.getRecord('withdrawal', 'w-1')).toEqual({ externalId: 'w-1', status: 'Failed' });
    expect(fake.getOrder('o-1')?.settlement).toEqual({ status: 'Settled', tradeId: 't-1' });
  });

  it('drives a 1.1 target that has only updateOrder and updateWithdrawal', async () => {
    const calls: unknown[][] = [];
    const target = {
      updateOrder: (...args: unknown[]) => calls.push(['order', ...args]),
      updateWithdrawal: (...args: unknown[]) => calls.push(['withdrawal', ...args]),
    };
    await playTimeline(target, [
      { atMs: 0, kind: 'withdrawal', id: 'w-9', patch: { status: 'Completed' } },
      { atMs: 0, order: 'o-9', patch: { currency: 'BRZ' } },
    ]).done;
    expect(calls).toEqual([
      ['withdrawal', 'w-9', { status: 'Completed' }],
      ['order', 'o-9', { currency: 'BRZ' }],
    ]);
  });

  it.each([
    ['an unknown kind', { atMs: 0, kind: 'payout', id: 'p-1', patch: {} }, /steps\[0\]\.kind must be .+, got "payout"/],
    ['no record and no event', { atMs: 0, patch: {} }, /steps\[0\] must name one record \(.+: \{ kind, id, patch \}\) or an event/],
    ['two records', { atMs: 0, order: 'o-1', withdrawal: 'w-1', patch: {} }, /must name one record/],
    ['an empty id', { atMs: 0, kind: 'order', id: '', patch: {} }, /externalId must be a non-empty string/],
    ['a patch that is not an object', { atMs: 0, kind: 'order', id: 'o-1', patch: 'Settled' }, /steps\[0\]\.patch must be an object/],
  ])('refuses %s before anything runs', (_what, step, message) => {
    expect(() => playTimeline(fake, [step as never])).toThrow(TypeError);
    expect(() => playTimeline(fake, [step as never])).toThrow(message);
  });

  it('a step that names no kind of the table is refused naming every kind', () => {
    for (const step of [
      { atMs: 0, kind: 'payout', id: 'p-1', patch: {} },
      { atMs: 0, patch: {} },
    ]) {
      expectEveryKind(thrown(() => playTimeline(fake, [step as never])).message);
    }
  });
});
