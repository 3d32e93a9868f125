// The `node` condition of `checkout-partner-sdk/webhooks`: index.ts's API (and its declarations), HMACs by node:crypto.
import { hmacBoundApi } from './api.js';
import type { WebhookHandler } from './types.js';
import type { WebhookHandlerOptions } from './engine/options.js';
import { nodeHmac } from './signature/hmac.node.js';
import type { VerifySignatureInput } from './signature/signature.js';
import type { PayloadInput } from './signature/bytes.js';

export * from './shared.js';

const api = hmacBoundApi(nodeHmac);

export function verifySignature(input: VerifySignatureInput): Promise<boolean> {
  return api.verifySignature(input);
}

export function signPayload(payload: PayloadInput, secret: string): Promise<string> {
  return api.signPayload(payload, secret);
}

export const createWebhookHandler: <Transaction = undefined>(options: WebhookHandlerOptions<Transaction>) => WebhookHandler =
  api.createWebhookHandler;
