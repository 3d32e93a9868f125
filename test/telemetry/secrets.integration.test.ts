import { CheckoutClient, ServerError } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { createWebhookHandler, signPayload } from 'checkout-partner-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installOtel } from './otel.js';

// Nothing secret in any exported span, event, link or metric: not the partner secret, the token, the
// signing secret, the signature, a header value or a body value (of a request, a response, an error
// response or an event), whatever the calls and deliveries did.

const partner = { partnerId: 'p-scan', partnerSecret: 'scan-partner-secret-0d6c1' };
const SIGNING_SECRET = 'whsec_scan_signing_4a77e';
const fake = createFakeCheckout({ partners: [partner] });
let url = '';
let close: () => Promise<void>;
beforeAll(async () => ({ url, close } = await fake.listen()));
afterAll(() => close());

describe('exported telemetry', () => {
  it('holds no secret, token, signature, header value or body value', async () => {
    const otel = installOtel();
    try {
      fake.setOrder({
        externalId: 'o-scan',
        currency: 'USDT',
        settlement: { status: 'Settled', tradeId: 'trade-scan' },
        customerNote: 'response-body-value-5e2a',
      });
      const client = new CheckoutClient({ baseUrl: url, ...partner, maxRetries: 1 });
      const extraHeader = 'x-partner-header-value-77b1';
      await client.getOrderByExternalId('o-scan', { headers: { 'x-correlation': extraHeader } });
      fake.failNext(1, 503, { retryAfter: 0, only: 'business', body: { message: 'retried-error-body-value-3f9d' } });
      await client.getMe();
      fake.failNext(2, 500, {
        only: 'business',
        retryAfter: 0,
        body: { message: 'error-body-value-c3d0', token: 'quoted-token-value-118e' },
      });
      await expect(client.getOrderByExternalId('o-scan')).rejects.toBeInstanceOf(ServerError);
      await client.request('GET', '/orders/by-external-id/o-scan', { searchParams: { filter: 'query-value-d51a' } }).catch(() => undefined);
      const token = await client.getAccessToken();

      const handler = createWebhookHandler({
        secret: SIGNING_SECRET,
        client,
        resolveOrderExternalId: () => 'o-scan',
        logger: false, // the failed deliveries are the point here: not written to the test run's stderr
        onEvent: ({ event }) => {
          if (event['fail'] === true) throw new Error('onevent-error-message-6a0b');
        },
      });
      const bodies = [
        { eventId: 'evt-scan-1', type: 'otc.trade.settled', tradeId: 'trade-scan', payerName: 'event-body-value-9b41' },
        { eventId: 'evt-scan-2', type: 'otc.trade.settled', tradeId: 'trade-scan', fail: true, payerName: 'event-body-value-9b41' },
      ].map((event) => JSON.stringify(event));
      const signatures: string[] = [];
      for (const body of bodies) {
        const signature = await signPayload(body, SIGNING_SECRET);
        signatures.push(signature);
        await handler.handle(
          new Request('http://127.0.0.1/hooks', { method: 'POST', headers: { 'x-provider-signature': signature }, body }),
        );
      }
      await handler.handle(
        new Request('http://127.0.0.1/hooks', {
          method: 'POST',
          headers: { 'x-provider-signature': 'sha256=bad-signature-value-0e21' },
          body: bodies[0] ?? '',
        }),
      );

      const spans = otel.spans();
      const metrics = await otel.metrics();
      expect(spans.length).toBeGreaterThan(8);
      expect(metrics.size).toBeGreaterThan(3);
      const exported = JSON.stringify({
        spans: spans.map((span) => ({
          name: span.name,
          attributes: span.attributes,
          status: span.status,
          events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
          links: span.links.map((link) => ({ context: link.context, attributes: link.attributes })),
        })),
        metrics: [...metrics.values()].map((metric) => ({
          descriptor: metric.descriptor,
          points: metric.dataPoints.map((point) => point.attributes),
        })),
      });
      // the scan reads what it should: ids, outcomes and templates are there
      expect(exported).toContain('evt-scan-1');
      expect(exported).toContain('/orders/by-external-id/{externalId}');
      const needles = [
        partner.partnerSecret,
        token,
        ...token.split('.').filter((part) => part.length > 8),
        SIGNING_SECRET,
        ...signatures,
        ...signatures.map((s) => s.replace('sha256=', '')),
        'bad-signature-value-0e21',
        extraHeader,
        'response-body-value-5e2a',
        'retried-error-body-value-3f9d',
        'error-body-value-c3d0',
        'quoted-token-value-118e',
        'query-value-d51a',
        'event-body-value-9b41',
        'onevent-error-message-6a0b',
        'Bearer',
      ];
      for (const needle of needles) expect(exported, needle).not.toContain(needle);
    } finally {
      await otel.uninstall();
    }
  });
});
