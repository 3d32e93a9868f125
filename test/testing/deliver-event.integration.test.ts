import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEvent, deliverEvent, EventDeliveryError, signEvent } from 'checkout-partner-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';

interface Received {
  body: string;
  signature: string | undefined;
  headers: http.IncomingHttpHeaders;
}

/** A small provider-facing receiver on 127.0.0.1: records each POST and answers with `answer(n)`. */
async function receiver(answer: (n: number) => number | 'hang' = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: req.headers['x-provider-signature'] as string | undefined,
        headers: req.headers,
      });
      const status = answer(received.length);
      if (status === 'hang') return;
      res.writeHead(status).end(status < 300 ? 'ok' : 'not yet');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  closers.push(close);
  return { url, received };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const hmac = (body: string, secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const event = { eventId: 'e-1', type: 'otc.trade.settled', tradeId: 't-1' };

describe('deliverEvent', () => {
  it('signs the raw body with HMAC-SHA256 as the provider does', async () => {
    const { url, received } = await receiver();
    const report = await deliverEvent(url, event, { secret: 'whsec' });
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toBe(JSON.stringify(event));
    expect(received[0]!.signature).toBe(hmac(received[0]!.body, 'whsec'));
    expect(received[0]!.headers['content-type']).toBe('application/json');
    expect(report).toMatchObject({ body: JSON.stringify(event), signature: hmac(JSON.stringify(event), 'whsec') });
    expect(report.deliveries).toEqual([{ status: 200, attempts: [{ status: 200, body: 'ok' }] }]);
  });

  it('duplicates: 1 delivers the same bytes and eventId twice', async () => {
    const { url, received } = await receiver();
    const report = await deliverEvent(url, event, { secret: 'whsec', duplicates: 1 });
    expect(received).toHaveLength(2);
    expect(received[1]!.body).toBe(received[0]!.body);
    expect(received[1]!.signature).toBe(received[0]!.signature);
    expect(report.deliveries).toHaveLength(2);
  });

  it('parallel sends the duplicates at once', async () => {
    const { url, received } = await receiver();
    await deliverEvent(url, event, { secret: 'whsec', duplicates: 2, parallel: true });
    expect(received).toHaveLength(3);
  });

  it('retries with backoff until a 2xx', async () => {
    const { url, received } = await receiver((n) => (n < 3 ? 503 : 200));
    const report = await deliverEvent(url, event, { secret: 'whsec', retryDelayMs: 1 });
    expect(received).toHaveLength(3);
    expect(report.deliveries[0]!.attempts.map((a) => a.status)).toEqual([503, 503, 200]);
  });

  it('gives up after maxAttempts with EventDeliveryError listing every attempt', async () => {
    const { url, received } = await receiver(() => 500);
    const failure = await deliverEvent(url, event, { secret: 'whsec', maxAttempts: 3, retryDelayMs: 1 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(EventDeliveryError);
    expect(failure).toMatchObject({ name: 'EventDeliveryError', attempts: [{ status: 500 }, { status: 500 }, { status: 500 }] });
    expect((failure as Error).message).toBe('The event was not accepted after 3 attempts (last: status 500)');
    expect(received).toHaveLength(3);
  });

  it('says "1 attempt", not "1 attempts", when one attempt was made', async () => {
    const { url } = await receiver(() => 500);
    const failure = await deliverEvent(url, event, { secret: 'whsec', maxAttempts: 1 }).catch((e: unknown) => e);
    expect((failure as Error).message).toBe('The event was not accepted after 1 attempt (last: status 500)');
    const refused = await receiver(() => 401);
    const refusal = await deliverEvent(refused.url, event, { secret: 'whsec' }).catch((e: unknown) => e);
    expect((refusal as Error).message).toMatch(/^The receiver refused the event with status 401 after 1 attempt \(/);
  });

  it('takes a 4xx other than 408, 409 and 429 as final: one request, then EventDeliveryError', async () => {
    for (const status of [400, 401, 403, 404, 413, 422]) {
      const { url, received } = await receiver(() => status);
      const failure = await deliverEvent(url, event, { secret: 'whsec', retryDelayMs: 1 }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(EventDeliveryError);
      expect(failure).toMatchObject({
        attempts: [{ status }],
        message: expect.stringContaining(`refused the event with status ${status}`),
      });
      expect(received).toHaveLength(1);
    }
  });

  it('retries a 408, a 409 (in flight at the receiver) and a 429 like a 5xx', async () => {
    const answers = [408, 409, 429, 200];
    const { url, received } = await receiver((n) => answers[n - 1] ?? 200);
    const report = await deliverEvent(url, event, { secret: 'whsec', retryDelayMs: 1 });
    expect(received).toHaveLength(4);
    expect(report.deliveries[0]!.attempts.map((a) => a.status)).toEqual([408, 409, 429, 200]);
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    const { url, received } = await receiver(() => 307);
    await expect(deliverEvent(url, event, { secret: 'whsec', maxAttempts: 2, retryDelayMs: 1 })).rejects.toBeInstanceOf(EventDeliveryError);
    expect(received).toHaveLength(2);
  });

  it('abandons an attempt after timeoutMs and retries it', async () => {
    const { url, received } = await receiver((n) => (n === 1 ? 'hang' : 200));
    const report = await deliverEvent(url, event, { secret: 'whsec', timeoutMs: 100, retryDelayMs: 1 });
    expect(received).toHaveLength(2);
    expect(report.deliveries[0]!.attempts[0]).toMatchObject({ status: undefined, error: expect.stringMatching(/100 ms/) });
  });

  it('records connection failures as attempts', async () => {
    const { url } = await receiver();
    await closers.pop()!();
    const failure = await deliverEvent(url, event, { secret: 'whsec', maxAttempts: 2, retryDelayMs: 1 }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: 'EventDeliveryError', attempts: [{ status: undefined }, { status: undefined }] });
  });

  it('uses a custom header name, a raw string body, and a custom fetch', async () => {
    const seen: Request[] = [];
    const report = await deliverEvent('https://partner.test/hook', '{"eventId":"e-2","type":"x"}', {
      secret: 's',
      signatureHeader: 'X-Other-Signature',
      fetch: async (request) => {
        seen.push(request);
        return new Response(null, { status: 204 });
      },
    });
    expect(seen[0]!.headers.get('x-other-signature')).toBe(hmac('{"eventId":"e-2","type":"x"}', 's'));
    expect(seen[0]!.headers.has('x-provider-signature')).toBe(false);
    expect(report.deliveries[0]!.status).toBe(204);
  });

  it('stops when its signal aborts', async () => {
    const { url } = await receiver(() => 500);
    const controller = new AbortController();
    const run = deliverEvent(url, event, { secret: 's', retryDelayMs: 5_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(run).rejects.toThrow('stop');
  });

  it.each([
    ['no options', undefined],
    ['an empty secret', { secret: '' }],
    ['a negative duplicates', { secret: 's', duplicates: -1 }],
    ['a zero maxAttempts', { secret: 's', maxAttempts: 0 }],
    ['a bad header name', { secret: 's', signatureHeader: 'bad header' }],
    ['a non-function fetch', { secret: 's', fetch: 'x' }],
    // past 2^31 - 1 ms a timer fires at once: every attempt would "time out" at once, every wait be skipped
    ['a timeoutMs a timer cannot hold', { secret: 's', timeoutMs: 2 ** 31 }],
    ['a retryDelayMs a timer cannot hold', { secret: 's', retryDelayMs: 2 ** 31 }],
    ['a delayMs a timer cannot hold', { secret: 's', delayMs: 2 ** 31 }],
  ])('rejects %s with a TypeError', async (_what, options) => {
    await expect(deliverEvent('http://127.0.0.1:1/', event, options as never)).rejects.toThrow(TypeError);
  });

  it('rejects a non-http URL and an event that is not an object', async () => {
    await expect(deliverEvent('ftp://127.0.0.1/x', event, { secret: 's' })).rejects.toThrow(TypeError);
    await expect(deliverEvent('http://127.0.0.1:1/', 42 as never, { secret: 's' })).rejects.toThrow(TypeError);
  });
});

describe('createEvent and signEvent', () => {
  it('creates events with unique ids and the given fields', () => {
    const a = createEvent('otc.trade.settled', { tradeId: 't-1' });
    const b = createEvent('otc.trade.settled', { tradeId: 't-1' });
    expect(a).toMatchObject({ type: 'otc.trade.settled', tradeId: 't-1', eventId: expect.stringMatching(/^evt_[0-9a-f]{32}$/) });
    expect(a.eventId).not.toBe(b.eventId);
    expect(() => createEvent('')).toThrow(TypeError);
  });

  it('signs like the provider', async () => {
    const signed = await signEvent(event, 'whsec');
    expect(signed.signature).toBe(hmac(JSON.stringify(event), 'whsec'));
    expect(signed.headers).toEqual({ 'content-type': 'application/json', 'x-provider-signature': signed.signature });
    await expect(signEvent(event, '')).rejects.toThrow(TypeError);
  });
});
