import { createHmac, randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, parseEvent, type WebhookContext } from 'checkout-partner-sdk/webhooks';

// Hostile deliveries: whatever bytes arrive as body or signature, the handler answers (never
// throws, never crashes the server) and onEvent only ever sees a correctly signed, valid event,
// once. The signatures here are computed independently with node:crypto.

const SECRET = `whsec-hostile-${randomUUID()}`;
const MAX_BODY = 512;
const hmac = (body: Uint8Array | string, secret = SECRET) => createHmac('sha256', secret).update(body).digest('hex');

function newHandler() {
  const seen: WebhookContext[] = [];
  const handler = createWebhookHandler({
    secret: SECRET,
    // never called: without resolvers nothing is read, so these runs need no service
    client: new CheckoutClient({ baseUrl: 'http://127.0.0.1:9', partnerId: 'p-1', partnerSecret: 's-1' }),
    onEvent: (context) => {
      seen.push(context);
    },
    store: new MemoryEventStore(),
    maxBodyBytes: MAX_BODY,
    // no resolvers on purpose (see client): no construction warning; senders cut off mid-body are not the point here
    logger: false,
  });
  return { handler, seen };
}

async function post(
  handle: (request: Request) => Promise<Response>,
  body: Uint8Array<ArrayBuffer>,
  signature: string | undefined,
): Promise<number> {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (signature !== undefined) headers.set('x-provider-signature', signature);
  const response = await handle(new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers }));
  await response.arrayBuffer();
  return response.status;
}

/** What a valid delivery of `body` must give, by an oracle independent of the handler's own parsing. */
function isValidEvent(body: Uint8Array): boolean {
  try {
    parseEvent(body);
    return true;
  } catch {
    return false;
  }
}

/** A header value (no CR, LF or NUL, which Headers refuses), biased to signature-like strings. */
const headerValue = fc.oneof(
  fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((s) => s.replace(/[\r\n\0]/g, '')),
  fc.stringMatching(/^(sha256=)?[0-9a-f]{0,70}$/),
  fc.stringMatching(/^(sha1=|sha512=|SHA256=|sha256:|v1,)[0-9a-fA-F]{64}$/),
);
const bodyBytes = fc.oneof(
  fc.uint8Array({ maxLength: MAX_BODY + 100 }),
  fc.json().map((s) => new TextEncoder().encode(s)),
  fc
    .record({
      eventId: fc.string({ minLength: 1 }),
      type: fc.constantFrom('pix.deposit.received', 'pix.withdrawal.settled', 'custom.type'),
      data: fc.jsonValue({ maxDepth: 2 }),
    })
    .map((event) => new TextEncoder().encode(JSON.stringify(event))),
);

/** Ways a correct signature can be broken that must never verify. */
const breakSignature = fc.constantFrom(
  (sig: string) => `sha256=${sig.slice(0, -1)}`,
  (sig: string) => `sha256=${sig}0`,
  (sig: string) => `sha256=${sig.slice(0, 10)}${sig[10] === 'a' ? 'b' : 'a'}${sig.slice(11)}`,
  (sig: string) => `sha1=${sig}`,
  (sig: string) => `sha256=sha256=${sig}`,
  (sig: string) => `sha256=${sig}, sha256=${sig}`,
  (_sig: string, body: Uint8Array) => `sha256=${hmac(new Uint8Array([...body, 0x20]))}`,
  (_sig: string, body: Uint8Array) => `sha256=${hmac(body, `${SECRET}x`)}`,
  (_sig: string, body: Uint8Array) => `sha256=${hmac(body, '')}`,
  () => '',
);

describe('webhook handler under hostile deliveries', () => {
  it('arbitrary bytes with an arbitrary (or no) signature: answered 401 or 413, never handled', async () => {
    const { handler, seen } = newHandler();
    await fc.assert(
      fc.asyncProperty(bodyBytes, fc.option(headerValue, { nil: undefined }), async (body, signature) => {
        const status = await post((r) => handler.handle(r), body, signature);
        expect(body.length > MAX_BODY ? [413] : [401]).toContain(status);
        expect(seen).toHaveLength(0);
      }),
      { numRuns: 200 },
    );
  });

  it('a correct signature, broken in any way, never verifies', async () => {
    const { handler, seen } = newHandler();
    await fc.assert(
      fc.asyncProperty(
        bodyBytes.filter((b) => b.length <= MAX_BODY),
        breakSignature,
        async (body, breakIt) => {
          const status = await post((r) => handler.handle(r), body, breakIt(hmac(body), body));
          expect(status).toBe(401);
          expect(seen).toHaveLength(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('arbitrary bytes, correctly signed: handled once when it is a valid event, else 400 or 413', async () => {
    const { handler, seen } = newHandler();
    const handled = new Set<string>();
    await fc.assert(
      fc.asyncProperty(bodyBytes, fc.boolean(), async (body, prefixed) => {
        const signature = prefixed ? `sha256=${hmac(body)}` : hmac(body);
        const before = seen.length;
        const status = await post((r) => handler.handle(r), body, signature);
        if (body.length > MAX_BODY) {
          expect(status).toBe(413);
          expect(seen).toHaveLength(before);
          return;
        }
        if (!isValidEvent(body)) {
          expect(status).toBe(400);
          expect(seen).toHaveLength(before);
          return;
        }
        const event = parseEvent(body);
        expect(status).toBe(200);
        // a new eventId reaches onEvent once, with the event as sent; a repeated one never again
        expect(seen).toHaveLength(handled.has(event.eventId) ? before : before + 1);
        if (!handled.has(event.eventId)) expect(seen.at(-1)?.event).toEqual(event);
        handled.add(event.eventId);
        // and a redelivery of the same bytes is a duplicate
        expect(await post((r) => handler.handle(r), body, signature)).toBe(200);
        expect(seen).toHaveLength(handled.size);
      }),
      { numRuns: 200 },
    );
    expect(handled.size).toBeGreaterThan(10); // the valid branch really ran
  });

  describe('over node:http (the node adapter)', () => {
    let server: Server;
    let port: number;
    const { handler, seen } = newHandler();

    beforeAll(async () => {
      server = createServer((req, res) => handler.node(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    function send(body: Uint8Array, signature: string | undefined): Promise<number> {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(body.length) };
        // node:http sends only header bytes HTTP/1.1 allows (tab, visible ASCII, obs-text)
        if (signature !== undefined) headers['x-provider-signature'] = signature.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/webhooks', headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body);
      });
    }

    it('arbitrary bytes and signatures: a status for each, never a crash, never an unsigned event', async () => {
      await fc.assert(
        fc.asyncProperty(bodyBytes, fc.option(headerValue, { nil: undefined }), fc.boolean(), async (body, signature, sign) => {
          const before = seen.length;
          const status = await send(body, sign ? `sha256=${hmac(body)}` : signature);
          if (body.length > MAX_BODY) expect(status).toBe(413);
          else if (!sign) expect(status).toBe(401);
          else expect(status).toBe(isValidEvent(body) ? 200 : 400);
          if (!sign || status !== 200) expect(seen).toHaveLength(before);
        }),
        { numRuns: 100 },
      );
    });

    it('bodies cut off mid-stream (the sender disconnects) leave the server answering', async () => {
      for (let i = 0; i < 20; i++) {
        await new Promise<void>((resolve) => {
          const req = httpRequest({
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/webhooks',
            headers: { 'content-length': '400', 'x-provider-signature': `sha256=${'0'.repeat(64)}` },
          });
          req.on('error', () => resolve());
          req.write('{"eventId":"cut","type":"x"');
          setTimeout(() => {
            req.destroy();
            resolve();
          }, i % 3);
        });
      }
      const body = new TextEncoder().encode(JSON.stringify({ eventId: `after-${randomUUID()}`, type: 'custom.type' }));
      expect(await send(body, `sha256=${hmac(body)}`)).toBe(200);
    });
  });
});
