import { createHmac } from 'node:crypto';
import { signPayload, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { delivery, mockCheckout, SECRET, setupHandler as setup } from '../helpers.js';

mockCheckout();

const settled = { eventId: 'evt-1', type: 'otc.trade.settled', tradeId: 't-1', amount: '10.00' };

afterEach(() => {
  vi.useRealTimers();
});

describe('step 1: size, signature, event (nothing claimed or handled)', () => {
  it('answers 413 to a streamed body over maxBodyBytes and stops reading it', async () => {
    const { handler, seen, calls, entries } = setup({ maxBodyBytes: 1024 });
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        if (pulls > 1000) controller.close();
        else controller.enqueue(new Uint8Array(256).fill(0x20));
      },
    });
    const request = new Request('https://partner.test/webhooks', {
      method: 'POST',
      body: stream,
      headers: { 'x-provider-signature': 'sha256=00' },
      duplex: 'half',
    } as RequestInit);
    const response = await handler.handle(request);
    expect(response.status).toBe(413);
    expect(pulls).toBeLessThan(20);
    expect(calls).toEqual([]);
    expect(seen).toEqual([]);
    expect(entries).toMatchObject([{ outcome: 'too-large', status: 413 }]);
  });

  it('answers 413 from Content-Length alone, without reading the body', async () => {
    const { handler, calls } = setup({ maxBodyBytes: 100 });
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new Uint8Array(10));
        if (pulls >= 50) controller.close();
      },
    });
    const request = new Request('https://partner.test/webhooks', {
      method: 'POST',
      body: stream,
      headers: { 'content-length': '500' },
      duplex: 'half',
    } as RequestInit);
    expect((await handler.handle(request)).status).toBe(413);
    expect(pulls).toBeLessThanOrEqual(1); // a stream may pre-pull once when built
    expect(calls).toEqual([]);
  });

  it('accepts a body of exactly maxBodyBytes', async () => {
    const body = JSON.stringify({ eventId: 'evt-size', type: 'custom.thing' });
    const { handler, seen } = setup({ maxBodyBytes: new TextEncoder().encode(body).byteLength });
    expect((await handler.handle(await delivery(body))).status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it.each([
    ['no signature', { signature: null }],
    ['a signature under another secret', { secret: 'another-secret' }],
    ['a malformed signature', { signature: 'sha256=zz' }],
    ['a signature of another body', { signature: 'sha256=' + '0'.repeat(64) }],
    ['the signature in another header', { header: 'x-other-signature' }],
  ])('answers 401 to %s', async (_label, options) => {
    const { handler, seen, calls, entries } = setup();
    const response = await handler.handle(await delivery(settled, options));
    expect(response.status).toBe(401);
    expect(calls).toEqual([]);
    expect(seen).toEqual([]);
    expect(entries).toMatchObject([{ outcome: 'bad-signature', status: 401 }]);
    expect(entries[0]).not.toHaveProperty('eventId');
  });

  it('answers 401 when the body was changed after signing', async () => {
    const { handler, calls } = setup();
    const signed = await delivery(settled);
    const tampered = new Request(signed.url, {
      method: 'POST',
      headers: signed.headers,
      body: JSON.stringify({ ...settled, amount: '99.00' }),
    });
    expect((await handler.handle(tampered)).status).toBe(401);
    expect(calls).toEqual([]);
  });

  it('reads the signature from a configured header name, case-insensitively', async () => {
    const { handler, seen } = setup({ signatureHeader: 'X-Acme-Signature' });
    const response = await handler.handle(await delivery(settled, { header: 'x-acme-signature' }));
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect((await handler.handle(await delivery({ ...settled, eventId: 'evt-2' }))).status).toBe(401);
  });

  it('uses a custom scheme instead of the default one', async () => {
    const scheme = vi.fn<NonNullable<WebhookHandlerOptions['scheme']>>(
      async ({ payload, headers, secrets, hmacSha256Hex, timingSafeEqual }) => {
        const timestamp = headers.get('x-timestamp');
        const sent = headers.get('x-provider-signature');
        if (timestamp === null || sent === null) return false;
        const expected = await hmacSha256Hex(secrets[0]!, `${timestamp}.${new TextDecoder().decode(payload)}`);
        return timingSafeEqual(expected, sent);
      },
    ) satisfies WebhookHandlerOptions['scheme'];
    const { handler, seen } = setup({ scheme });
    const body = JSON.stringify(settled);
    const good = createHmac('sha256', SECRET).update(`1700000000.${body}`).digest('hex');
    const request = (signature: string) =>
      new Request('https://partner.test/webhooks', {
        method: 'POST',
        headers: { 'x-timestamp': '1700000000', 'x-provider-signature': signature },
        body,
      });
    expect((await handler.handle(request(await signPayload(body, SECRET)))).status).toBe(401); // the default scheme's header is not enough
    expect((await handler.handle(request(good))).status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(scheme).toHaveBeenCalledTimes(2);
  });

  it('answers 401 when a custom scheme throws', async () => {
    const { handler, calls, entries } = setup({
      scheme: () => {
        throw new Error('scheme bug');
      },
    });
    expect((await handler.handle(await delivery(settled))).status).toBe(401);
    expect(calls).toEqual([]);
    expect(entries[0]).toMatchObject({ outcome: 'bad-signature', error: { message: 'scheme bug' } });
  });

  it.each([
    ['not JSON', 'not json at all'],
    ['a JSON array', '[1,2]'],
    ['no eventId', JSON.stringify({ type: 'otc.trade.settled', tradeId: 't-1' })],
    ['an empty eventId', JSON.stringify({ eventId: '', type: 'x' })],
    ['no type', JSON.stringify({ eventId: 'evt-1' })],
    ['otc.trade.settled with a numeric tradeId', JSON.stringify({ eventId: 'evt-1', type: 'otc.trade.settled', tradeId: 7 })],
  ])('answers 400 to a signed body that is %s', async (_label, body) => {
    const { handler, seen, calls, entries } = setup();
    const response = await handler.handle(await delivery(body));
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain(body);
    expect(calls).toEqual([]);
    expect(seen).toEqual([]);
    expect(entries).toMatchObject([{ outcome: 'invalid', status: 400 }]);
  });
});

describe('handle(request) with a consumed body', () => {
  it('answers 500 explaining that the raw body is needed', async () => {
    const { handler, seen, entries } = setup();
    const request = await delivery(settled);
    await request.json();
    const response = await handler.handle(request);
    expect(response.status).toBe(500);
    expect(await response.text()).toMatch(/already read/);
    expect(seen).toEqual([]);
    expect(entries).toMatchObject([{ outcome: 'misconfigured' }]);
  });
});
