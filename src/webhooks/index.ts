/** `checkout-partner-sdk/webhooks` over Web Crypto, for every runtime; on Node, index.node.ts is the same API over node:crypto. */
import { hmacBoundApi } from './api.js';
import type { WebhookHandler } from './types.js';
import type { WebhookHandlerOptions } from './engine/options.js';
import { webCryptoHmac } from './signature/hmac.web.js';
import type { VerifySignatureInput } from './signature/signature.js';
import type { PayloadInput } from './signature/bytes.js';

export * from './shared.js';

const api = hmacBoundApi(webCryptoHmac);

/** Whether `signature` is the HMAC-SHA256 of the raw `payload` under `secret` (or any of a list), compared in constant time. */
export function verifySignature(input: VerifySignatureInput): Promise<boolean> {
  return api.verifySignature(input);
}

/** The `X-Provider-Signature` value for `payload` under `secret` (`sha256=<hex>`), as the provider signs: for tests and replays. */
export function signPayload(payload: PayloadInput, secret: string): Promise<string> {
  return api.signPayload(payload, secret);
}

/**
 * A webhook handler: per delivery it verifies and parses the event, claims its eventId in `store`, confirms it through
 * `client`, calls `onEvent`, then completes the claim (200) or releases it (500, for a redelivery). Options are checked at once.
 * @example
 * const handler = createWebhookHandler({
 *   secret: process.env.WEBHOOK_SIGNING_SECRET!,
 *   client: new CheckoutClient(),
 *   resolveOrderExternalId: (event) => (typeof event['tradeId'] === 'string' ? orders.externalIdForTrade(event['tradeId']) : undefined),
 *   onEvent: async ({ event, order, confirmed }) => (confirmed && event.type === 'otc.trade.settled' ? fulfil(order) : undefined),
 * });
 * app.post('/webhooks', (c) => handler.handle(c.req.raw)); // Hono; handler.node(req, res) on Node
 */
export const createWebhookHandler: <Transaction = undefined>(options: WebhookHandlerOptions<Transaction>) => WebhookHandler =
  api.createWebhookHandler;
