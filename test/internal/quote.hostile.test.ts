import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, parseEvent, WebhookPayloadError } from 'checkout-partner-sdk/webhooks';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';

// Values from outside are quoted in error messages (JSON.stringify-style, control characters
// escaped), so a CR/LF or an ESC sequence in an event type, an id or an option can neither forge a
// log line nor drive the terminal that shows the message.

const ORIGIN = 'https://checkout.test';
const API = `${ORIGIN}/api/v1/partner-api`;
const FORGED = 'pix.deposit.received\r\n2026-01-01 INFO order o-1 Settled\u001b[2J\u0007\u009b31m\u2028end';
/** Any C0 or C1 control, DEL, or a line/paragraph separator: what must never reach a message raw. */
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const server = setupServer(
  http.post(`${API}/auth/token`, () => HttpResponse.json({ accessToken: 'tok', tokenType: 'Bearer', expiresIn: 3600 })),
  http.get(`${API}/orders/by-external-id/:id`, () => HttpResponse.json({ message: `no such order${FORGED}` }, { status: 404 })),
  http.get(`${API}/withdrawals/by-external-id/:id`, () =>
    HttpResponse.json({ externalId: 'w-1', status: 'Completed' }, { headers: { 'x-request-id': 'req-1\u009b2J forged' } }),
  ),
);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a throw');
}

describe('values in error messages are quoted and escaped', () => {
  it('an event type with CR/LF/ESC in a WebhookPayloadError message', () => {
    let caught: unknown;
    try {
      parseEvent(JSON.stringify({ eventId: 'e-1', type: FORGED, endUserId: 42 }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WebhookPayloadError);
    const { message } = caught as WebhookPayloadError;
    expect(message).not.toMatch(RAW_CONTROL);
    expect(message).toContain(
      '"pix.deposit.received\\r\\n2026-01-01 INFO order o-1 Settled\\u001b[2J\\u0007\\u009b31m\\u2028end" endUserId must be',
    );
  });

  it('an unknown option name, and a wrong option value, in createWebhookHandler', () => {
    const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'p', partnerSecret: 's' });
    const base = { secret: 'whsec', client, onEvent: () => {}, resolveOrderExternalId: () => undefined };
    const unknown = messageOf(() => createWebhookHandler({ ...base, [`logger\n[WARN] x`]: 1 } as never));
    expect(unknown).toBe('createWebhookHandler: unknown option "logger\\n[WARN] x"');
    const value = messageOf(() => createWebhookHandler({ ...base, maxBodyBytes: '1\u001b[2J' as never }));
    expect(value).toBe('maxBodyBytes must be a whole number of bytes of at least 1, got "1\\u001b[2J"');
  });

  it('a store option, an id in the testing kit, and a partner id', () => {
    expect(messageOf(() => new MemoryEventStore({ maxEntries: '9\r\nX' as never }))).toContain('got "9\\r\\nX"');
    const fake = createFakeCheckout();
    const update = messageOf(() => fake.updateOrder('o-1\u001b]0;pwned\u0007', { settlement: { status: 'Settled' } }));
    expect(update).not.toMatch(RAW_CONTROL);
    expect(update).toContain('"o-1\\u001b]0;pwned\\u0007"');
    const twice = messageOf(() =>
      createFakeCheckout({
        partners: [
          { partnerId: 'p\n1', partnerSecret: 's' },
          { partnerId: 'p\n1', partnerSecret: 't' },
        ],
      }),
    );
    expect(twice).toContain('"p\\n1"');
  });

  it('a long value is cut, so a message stays one short line', () => {
    const message = messageOf(() => createWebhookHandler({ secret: 'whsec', client: {}, onEvent: () => {}, ['x'.repeat(10_000)]: 1 }));
    expect(message.length).toBeLessThan(200);
    expect(message).toMatch(/"x+"…$/);
  });

  it("a service's error text is shown with its control characters escaped", async () => {
    const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'p', partnerSecret: 's', maxRetries: 0 });
    const error = await client.getOrderByExternalId('o-1').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.name).toBe('NotFoundError');
    expect(error?.message).not.toMatch(RAW_CONTROL);
    expect(error?.message).toContain('Settled\\u001b[2J\\u0007\\u009b31m');
  });

  it("the client's CHECKOUT_LOG=debug line shows a service's x-request-id quoted and escaped", async () => {
    vi.stubEnv('CHECKOUT_LOG', 'debug');
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const client = new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'p', partnerSecret: 's', maxRetries: 0 });
      await client.getWithdrawalByExternalId('w-1');
      const line = stderr.mock.calls.map((call) => String(call[0])).find((text) => text.includes('/withdrawals/'));
      // header values are bytes: the 8-bit CSI (0x9B) is what a terminal would act on there
      expect(line).toContain('requestId="req-1\\u009b2J forged"');
      expect(line).not.toMatch(RAW_CONTROL);
    } finally {
      stderr.mockRestore();
      vi.unstubAllEnvs();
    }
  });
});
