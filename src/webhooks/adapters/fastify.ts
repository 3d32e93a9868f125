import { typeName } from '../../internal/type-name.js';
import type { DeliveryInput } from '../engine/delivery-types.js';
import type { WebhookEngine } from '../engine/lifecycle.js';
import { deliverToNode, isNodeRequest, isNodeResponse, nodeDeliveryInput, type NodeRequestLike, type NodeResponseLike } from './node.js';

/** The part of a Fastify request the `fastify` adapter uses, typed by shape; Fastify 5's `FastifyRequest` fits. */
export interface FastifyRequestLike {
  /** The underlying Node request (`IncomingMessage`): its method, headers and, if no parser read it, its stream. */
  readonly raw: NodeRequestLike;
  /** The parsed body: bytes or text from a `parseAs: 'buffer'` / `'string'` content-type parser are used as the raw body. */
  readonly body?: unknown;
  /** The raw body kept by fastify-raw-body (a string, or bytes with `encoding: false`); used before `body`. */
  readonly rawBody?: unknown;
}

/** The part of a Fastify reply the `fastify` adapter uses; Fastify 5's `FastifyReply` fits. */
export interface FastifyReplyLike {
  /** The underlying Node response (`ServerResponse`) the answer is written to. */
  readonly raw: NodeResponseLike;
  /** Tells Fastify the handler answers on `raw` itself. */
  hijack(): unknown;
}

export function fastifyDeliveryInput(request: FastifyRequestLike, reply: FastifyReplyLike): DeliveryInput {
  if (request === null || typeof request !== 'object' || !isNodeRequest(request.raw)) {
    throw new TypeError(`fastify takes a Fastify request (with request.raw), got ${typeName(request)}`);
  }
  if (reply === null || typeof reply !== 'object' || typeof reply.hijack !== 'function' || !isNodeResponse(reply.raw)) {
    throw new TypeError(`fastify takes a Fastify reply (with reply.hijack() and reply.raw), got ${typeName(reply)}`);
  }
  return nodeDeliveryInput(request.raw, { framework: 'fastify', kept: request });
}

export function fastifyAdapter(engine: WebhookEngine): (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<void> {
  return async function fastify(request: FastifyRequestLike, reply: FastifyReplyLike): Promise<void> {
    const input = fastifyDeliveryInput(request, reply);
    // the answer is written on reply.raw, after Fastify's own reply is set aside
    reply.hijack();
    await deliverToNode(engine, reply.raw, input);
  };
}
