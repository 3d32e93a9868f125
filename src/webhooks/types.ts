import type { FastifyReplyLike, FastifyRequestLike } from './adapters/fastify.js';
import type { KoaContextLike } from './adapters/koa.js';
import type { NodeRequestLike, NodeResponseLike } from './adapters/node.js';
import type { HandleOptions, WebhookHandlerHealth } from './engine/lifecycle.js';
import type { DrainOptions, DrainReport } from '../drain.js';
import type { WebhookHandlerOptions } from './engine/options.js';

/** What `createWebhookHandler` returns: the same handling behind each framework's adapter. */
export interface WebhookHandler {
  /** Handles one delivery as a Fetch API `Request`, resolving with the `Response`, failures included; on Workers pass `{ waitUntil }`. */
  handle(request: Request, options?: HandleOptions): Promise<Response>;
  /** Handles one delivery on node:http, Express or NestJS, reading the raw body or taking the one the framework kept. */
  node(req: NodeRequestLike, res: NodeResponseLike): void;
  /**
   * Handles one delivery in Fastify, answering on the hijacked `reply.raw`. Fastify's JSON parser keeps no raw bytes: give
   * the route a buffer parser in its own plugin (or use fastify-raw-body); a parsed body is answered 500 with the fix.
   * @example
   * app.register(async (webhooks) => {
   *   webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
   *   webhooks.post('/webhooks', (request, reply) => handler.fastify(request, reply));
   * });
   */
  fastify(request: FastifyRequestLike, reply: FastifyReplyLike): Promise<void>;
  /** Handles one delivery in Koa, answering on `ctx.res`, with the raw body a body parser kept or read from `ctx.req`. */
  koa(ctx: KoaContextLike): Promise<void>;
  /** Stops taking deliveries (503); resolves once those in hand end or `timeoutMs` (10_000) passes, giving up the rest. On SIGTERM. */
  drain(options?: DrainOptions): Promise<DrainReport>;
  /** For a readiness probe: whether `drain()` was called (the handler then answers 503) and how many deliveries it holds. */
  health(): WebhookHandlerHealth;
}

/**
 * `createWebhookHandler`'s signature, in both builds.
 * @inline
 */
export type CreateWebhookHandler = <Transaction = undefined>(options: WebhookHandlerOptions<Transaction>) => WebhookHandler;
