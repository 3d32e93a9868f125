import { handlerFactory, type CreateWebhookHandler } from './engine/handler.js';
import type { Hmac } from './signature/hmac.js';
import { createSignatures, type SignPayload, type VerifySignature } from './signature/signature.js';

/** The public functions that compute HMACs, built once per entry point over its HMAC implementation. */
export interface HmacBoundApi {
  verifySignature: VerifySignature;
  signPayload: SignPayload;
  createWebhookHandler: CreateWebhookHandler;
}

export function hmacBoundApi(hmac: Hmac): HmacBoundApi {
  const signatures = createSignatures(hmac);
  const { verifySignature, signPayload } = signatures;
  return { verifySignature, signPayload, createWebhookHandler: handlerFactory(signatures) };
}
