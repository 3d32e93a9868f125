import { createWebhookHandler, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import type { LogEntry } from 'checkout-partner-sdk';
import { describe, expect, it } from 'vitest';
import { delivery, makeClient, mockCheckout } from '../helpers.js';

// API.md "Operations": the webhook `secret` may be a function (sync or async) read per delivery,
// returning one secret or a list (old and new while rotating), so a rotation needs no restart.

mockCheckout();
const OLD = 'whsec_old_0123456789';
const NEW = 'whsec_new_9876543210';

type DeliveryEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;

function handlerWith(secret: WebhookHandlerOptions['secret']) {
  const entries: DeliveryEntry[] = [];
  const handled: string[] = [];
  const handler = createWebhookHandler({
    secret,
    client: makeClient(),
    // an event type that needs no status read: the test is about the signature
    onEvent: ({ event }) => void handled.push(event.eventId),
    logger: (entry) => {
      if (entry.event === 'webhook.delivery') entries.push(entry);
    },
  });
  return { handler, entries, handled };
}

let n = 0;
const event = () => ({ eventId: `evt-rot-${++n}`, type: 'pix.deposit.received' });

describe('a secret function is read per delivery', () => {
  it('a rotation mid-stream: old, both, then new; no 401 while the deliveries are signed by a secret the function returns', async () => {
    let current: string | string[] = OLD;
    const { handler, handled } = handlerWith(() => current);
    const statuses: [string, number][] = [];
    const send = async (signedWith: string) => {
      const sent = event();
      const response = await handler.handle(await delivery(sent, { secret: signedWith }));
      statuses.push([signedWith === OLD ? 'old' : 'new', response.status]);
      return sent.eventId;
    };

    await send(OLD);
    expect((await handler.handle(await delivery(event(), { secret: NEW }))).status).toBe(401); // not accepted yet
    current = [OLD, NEW]; // both sides agree: the provider may sign with either while it switches
    for (let i = 0; i < 6; i += 1) await send(i % 2 === 0 ? OLD : NEW);
    current = NEW; // the old secret is retired
    await send(NEW);
    expect((await handler.handle(await delivery(event(), { secret: OLD }))).status).toBe(401);

    expect(statuses.every(([, status]) => status === 200)).toBe(true);
    expect(statuses).toHaveLength(8);
    expect(handled).toHaveLength(8);
  });

  it('an async function, and an array changed in place between deliveries, are both read again', async () => {
    const list = [OLD];
    const { handler } = handlerWith(async () => list);
    expect((await handler.handle(await delivery(event(), { secret: OLD }))).status).toBe(200);
    list.push(NEW);
    expect((await handler.handle(await delivery(event(), { secret: NEW }))).status).toBe(200);
    list.shift();
    expect((await handler.handle(await delivery(event(), { secret: OLD }))).status).toBe(401);
  });

  it('a fixed list is a snapshot taken when the handler is built', async () => {
    const list = [OLD];
    const { handler } = handlerWith(list);
    list.push(NEW);
    expect((await handler.handle(await delivery(event(), { secret: NEW }))).status).toBe(401);
  });
});

describe('a secret function that fails answers 503 secret-unavailable, logged, never a crash', () => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      'throws',
      () => {
        throw new Error('vault unreachable');
      },
      /the secret function threw Error: vault unreachable/,
    ],
    ['rejects', () => Promise.reject(new TypeError('timed out')), /the secret function threw TypeError: timed out/],
    [
      'returns undefined',
      () => undefined,
      /secret function's result must be a non-empty string or a non-empty array of them, got undefined/,
    ],
    ['returns an empty string', () => '', /must be a non-empty string, got an empty string/],
    ['returns an empty list', () => [], /non-empty array/],
    ['resolves a list holding a number', async () => [OLD, 42], /result\[1\] must be a non-empty string, got number/],
  ];
  for (const [what, secret, message] of cases) {
    it(`the function ${what}`, async () => {
      const { handler, entries, handled } = handlerWith(secret as WebhookHandlerOptions['secret']);
      const response = await handler.handle(await delivery(event(), { secret: OLD }));
      expect(response.status).toBe(503);
      expect(await response.text()).toMatch(/signing secret is unavailable/);
      expect(handled).toEqual([]);
      expect(entries).toMatchObject([{ outcome: 'secret-unavailable', status: 503, error: { name: 'WebhookSecretError' } }]);
      expect(entries[0]?.error?.message).toMatch(message);
      expect(JSON.stringify(entries)).not.toContain(OLD);
    });
  }

  it('the handler keeps working once the function recovers', async () => {
    let fail = true;
    const { handler } = handlerWith(() => {
      if (fail) throw new Error('not yet');
      return OLD;
    });
    expect((await handler.handle(await delivery(event(), { secret: OLD }))).status).toBe(503);
    fail = false;
    expect((await handler.handle(await delivery(event(), { secret: OLD }))).status).toBe(200);
  });

  it('a secret option that is neither a secret, a list nor a function is refused at construction', () => {
    expect(() => handlerWith(42 as unknown as string)).toThrow(TypeError);
  });
});
