/**
 * The `node` export condition of `checkout-partner-sdk/webhooks`: the same API as `index.ts`,
 * with HMACs computed by node:crypto over a pre-made `KeyObject` per secret. Only Node loads it.
 */
import { hmacBoundApi } from './api.js';
import type { WebhookHandler } from './types.js';
import type { WebhookHandlerOptions } from './engine/options.js';
import { nodeHmac } from './signature/hmac.node.js';
import type { VerifySignatureInput } from './signature/signature.js';
import type { PayloadInput } from './signature/bytes.js';

export * from './shared.js';

const api = hmacBoundApi(nodeHmac);

/** See `verifySignature` in `index.ts`: the same function over node:crypto. */
export function verifySignature(input: VerifySignatureInput): Promise<boolean> {
  return api.verifySignature(input);
}

/** See `signPayload` in `index.ts`: the same function over node:crypto. */
export function signPayload(payload: PayloadInput, secret: string): Promise<string> {
  return api.signPayload(payload, secret);
}

/** See `createWebhookHandler` in `index.ts`: the same handler over node:crypto. */
export const createWebhookHandler: <Transaction = undefined>(options: WebhookHandlerOptions<Transaction>) => WebhookHandler =
  api.createWebhookHandler;
