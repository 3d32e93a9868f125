import { fastifyAdapter } from './adapters/fastify.js';
import { fetchAdapter } from './adapters/fetch.js';
import { koaAdapter } from './adapters/koa.js';
import { nodeAdapter } from './adapters/node.js';
import { engineFactory } from './engine/lifecycle.js';
import type { WebhookHandlerOptions } from './engine/options.js';
import type { Hmac } from './signature/hmac.js';
import { createSignatures, type Signatures, type SignPayload, type VerifySignature } from './signature/signature.js';
import type { CreateWebhookHandler, WebhookHandler } from './types.js';

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

function handlerFactory(signatures: Signatures): CreateWebhookHandler {
  const createEngine = engineFactory(signatures);
  return function createWebhookHandler<Transaction = undefined>(options: WebhookHandlerOptions<Transaction>): WebhookHandler {
    const engine = createEngine(options);
    return {
      handle: fetchAdapter(engine),
      node: nodeAdapter(engine),
      fastify: fastifyAdapter(engine),
      koa: koaAdapter(engine),
      drain: (drainOptions) => engine.drain(drainOptions),
      health: () => engine.health(),
    };
  };
}
