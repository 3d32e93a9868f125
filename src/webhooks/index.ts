/**
 * `checkout-partner-sdk/webhooks`: verify, parse and handle the payment provider's events.
 * This build computes HMACs with Web Crypto and loads on every runtime (no `node:` import);
 * on Node the `node` export condition loads `index.node.ts`, the same API over node:crypto.
 */
import { hmacBoundApi } from './api.js';
import type { WebhookHandler } from './types.js';
import type { WebhookHandlerOptions } from './engine/options.js';
import { webCryptoHmac } from './signature/hmac.web.js';
import type { VerifySignatureInput } from './signature/signature.js';
import type { PayloadInput } from './signature/bytes.js';

export * from './shared.js';

const api = hmacBoundApi(webCryptoHmac);

/**
 * Whether `signature` (the `X-Provider-Signature` value: `sha256=<hex>` or bare lowercase hex) is
 * the HMAC-SHA256 of the raw `payload` under `secret`, or under any secret of a list while
 * rotating. Constant-time; a missing or malformed signature verifies `false`; arguments of the
 * wrong type are a `TypeError`.
 *
 * @example
 * const ok = await verifySignature({ payload: rawBody, signature: request.headers.get('x-provider-signature'), secret });
 */
export function verifySignature(input: VerifySignatureInput): Promise<boolean> {
  return api.verifySignature(input);
}

/**
 * The `X-Provider-Signature` header value for `payload` under `secret`: `sha256=<lowercase hex
 * HMAC-SHA256>`, as the provider signs. For tests and for replaying events.
 *
 * @example
 * const signature = await signPayload(JSON.stringify(event), secret); // 'sha256=5d41…'
 */
export function signPayload(payload: PayloadInput, secret: string): Promise<string> {
  return api.signPayload(payload, secret);
}

/**
 * A webhook handler: per delivery it checks size (413), signature (401) and event (400), claims the
 * eventId in `store` (done → 200, in flight → 409, store down → 503), confirms the event by
 * re-reading the record it is about through `client`, calls `onEvent`, then completes the claim
 * (200) or releases it (500, so a redelivery runs it again). Past `responseTimeoutMs` it answers
 * 503 while the work goes on. Options are checked at once (`TypeError`).
 *
 * @example
 * const handler = createWebhookHandler({
 *   secret: process.env.WEBHOOK_SIGNING_SECRET!,
 *   client: new CheckoutClient(),
 *   resolveOrderExternalId: (event) => (typeof event['tradeId'] === 'string' ? orders.externalIdForTrade(event['tradeId']) : undefined),
 *   onEvent: async ({ event, order, confirmed }) => {
 *     if (confirmed && event.type === 'otc.trade.settled') await fulfil(order);
 *   },
 * });
 * app.post('/webhooks', (c) => handler.handle(c.req.raw)); // Hono; handler.node(req, res) on Node
 * // Cloudflare Workers: let the work after a 503 finish
 * app.post('/webhooks', (c) => handler.handle(c.req.raw, { waitUntil: c.executionCtx.waitUntil.bind(c.executionCtx) }));
 */
export const createWebhookHandler: <Transaction = undefined>(options: WebhookHandlerOptions<Transaction>) => WebhookHandler =
  api.createWebhookHandler;
