// The handler's public shape, types only: what createWebhookHandler returns, over the engine's
// and the adapters' types.
import type { FastifyReplyLike, FastifyRequestLike } from './adapters/fastify.js';
import type { KoaContextLike } from './adapters/koa.js';
import type { NodeRequestLike, NodeResponseLike } from './adapters/node.js';
import type { HandleOptions, WebhookHandlerHealth } from './engine/lifecycle.js';
import type { DrainOptions, DrainReport } from '../drain.js';
import type { WebhookHandlerOptions } from './engine/options.js';

/** What `createWebhookHandler` returns: the same handling behind a Fetch API adapter and a Node one. */
export interface WebhookHandler {
  /**
   * Handles one delivery as a Fetch API `Request` (Hono, Next.js route handlers, Bun, Deno,
   * Cloudflare Workers) and resolves with the `Response` to send. Never rejects for a delivery's
   * own failure; it answers it. On Workers, pass `{ waitUntil }` (see `options.waitUntil`) so
   * work that goes on after a 503 is not stopped with the request.
   *
   * @example
   * app.post('/webhooks', (c) => handler.handle(c.req.raw)); // Hono on Node, Bun or Deno
   * app.post('/webhooks', (c) => handler.handle(c.req.raw, { waitUntil: c.executionCtx.waitUntil.bind(c.executionCtx) })); // Workers
   */
  handle(request: Request, options?: HandleOptions): Promise<Response>;
  /**
   * Handles one delivery on node:http, Express or NestJS (on Express). It reads the raw body from
   * the request stream itself (bounded by `maxBodyBytes`), so the route needs no body parser; raw
   * bytes a framework kept are used as they are: `req.rawBody` (NestJS with
   * `NestFactory.create(AppModule, { rawBody: true })`), or bytes or text left in `req.body` by
   * `express.raw()` / `express.text()`. A route whose raw body is gone is answered 500 with the fix.
   *
   * @example
   * http.createServer((req, res) => handler.node(req, res)); // node:http
   * app.post('/webhooks', (req, res) => handler.node(req, res)); // Express, before express.json()
   * // NestJS controller: @Post() receive(@Req() req: RawBodyRequest<Request>, @Res() res: Response) { this.handler.node(req, res); }
   */
  node(req: NodeRequestLike, res: NodeResponseLike): void;
  /**
   * Handles one delivery in Fastify. Fastify's default JSON parser keeps no raw bytes, so register
   * the webhook route in its own plugin with a `parseAs: 'buffer'` (or `'string'`) content-type
   * parser, whose `request.body` the adapter takes as the raw body; `request.rawBody` from
   * fastify-raw-body works too. It hijacks the reply (`reply.hijack()`) and answers on `reply.raw`,
   * and resolves once the answer is written. A parsed `request.body` is answered 500 with the fix.
   * Arguments that are not a Fastify request and reply reject with a `TypeError`.
   *
   * @example
   * app.register(async (webhooks) => {
   *   // scoped to this plugin: the rest of the app keeps Fastify's JSON parser
   *   webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
   *   webhooks.post('/webhooks', (request, reply) => handler.fastify(request, reply));
   * });
   */
  fastify(request: FastifyRequestLike, reply: FastifyReplyLike): Promise<void>;
  /**
   * Handles one delivery in Koa. It takes the raw body a body parser kept in `ctx.request.rawBody`
   * (@koa/bodyparser, koa-bodyparser), or reads `ctx.req` itself when nothing read it; it sets
   * `ctx.respond = false`, writes the answer to `ctx.res`, and resolves once it is written. A body
   * parsed by a parser that keeps no raw body is answered 500 with the fix. An argument that is not
   * a Koa context rejects with a `TypeError`.
   *
   * @example
   * router.post('/webhooks', (ctx) => handler.koa(ctx)); // @koa/router, with or without @koa/bodyparser
   * app.use((ctx, next) => (ctx.method === 'POST' && ctx.path === '/webhooks' ? handler.koa(ctx) : next()));
   */
  koa(ctx: KoaContextLike): Promise<void>;
  /**
   * Stops taking new deliveries (they are answered 503, so the provider redelivers them), answers
   * 503 at once to those whose body is still arriving, and resolves once every delivery in hand
   * has completed or released its claim, or once `timeoutMs` (10 s) has passed, with a
   * {@link DrainReport} of what was still running, which it then gives up (its claims are no
   * longer renewed, `context.signal` aborts). Call it on SIGTERM before closing the server
   * (then `tracker.drain()`, 10 s by default: both fit a 30 s grace period with a pre-stop wait).
   *
   * @example
   * process.once('SIGTERM', async () => {
   *   const report = await handler.drain();
   *   if (!report.drained) console.warn('left to redelivery', report.inHand);
   *   server.close();
   * });
   */
  drain(options?: DrainOptions): Promise<DrainReport>;
  /**
   * For a liveness or readiness probe: whether `drain()` was called (a draining handler answers
   * 503: take it out of the load balancer) and how many deliveries it holds now.
   *
   * @example
   * app.get('/readyz', (c) => c.json(handler.health(), handler.health().draining ? 503 : 200));
   */
  health(): WebhookHandlerHealth;
}

/**
 * `createWebhookHandler`'s signature (the same in the Web Crypto and the node:crypto build).
 *
 * @inline
 */
export type CreateWebhookHandler = <Transaction = undefined>(options: WebhookHandlerOptions<Transaction>) => WebhookHandler;
