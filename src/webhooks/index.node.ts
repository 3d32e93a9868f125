/**
 * The `node` export condition of `checkout-partner-sdk/webhooks`: the same API as `index.ts`,
 * with HMACs computed by node:crypto over a pre-made `KeyObject` per secret. Only Node loads it.
 */
import { hmacBoundApi } from './api.js';
import type { CreateWebhookHandler } from './types.js';
import { nodeHmac } from './signature/hmac.node.js';
import type { SignPayload, VerifySignature } from './signature/signature.js';

export * from './shared.js';

const api = hmacBoundApi(nodeHmac);

/** See `verifySignature` in `index.ts`: the same function over node:crypto. */
export const verifySignature: VerifySignature = api.verifySignature;

/** See `signPayload` in `index.ts`: the same function over node:crypto. */
export const signPayload: SignPayload = api.signPayload;

/** See `createWebhookHandler` in `index.ts`: the same handler over node:crypto. */
export const createWebhookHandler: CreateWebhookHandler = api.createWebhookHandler;
