import { timerMs } from '../../internal/timer-ms.js';
import { describe } from '../../internal/path.js';
import { readRequestBody } from './body.js';
import { BodyDeadlineError, DrainingAbort, refusal, runDelivery, type DeliveryInput, type DeliveryProgress, type DeliveryResult } from './deliver.js';
import { logError, logWriter, warnOnce, type WebhookLogEntry } from './logger.js';
import { fastifyDeliveryInput, type FastifyReplyLike, type FastifyRequestLike } from '../adapters/fastify.js';
import { koaDeliveryInput, type KoaContextLike } from '../adapters/koa.js';
import {
  isNodeRequest,
  isNodeResponse,
  nodeDeliveryInput,
  writeNodeResponse,
  type NodeRequestLike,
  type NodeResponseLike,
  type PlainResponse,
} from '../adapters/node.js';
import { resolveOptions, type WebhookHandlerOptions } from './options.js';
import { OUTCOME_MESSAGE, OUTCOME_STATUS } from './outcome.js';
import type { Signatures } from '../signature/signature.js';
import { Telemetry } from '../../telemetry/telemetry.js';

/** The second argument of {@link WebhookHandler.handle}. */
export interface HandleOptions {
  /**
   * Keeps the runtime alive for work that goes on after the response: a delivery answered 503 at
   * `responseTimeoutMs` whose work is still running, or the retries of a claim that could not be
   * marked done. On Cloudflare Workers (or another runtime that offers `waitUntil`) pass the request
   * context's `waitUntil`: without it the runtime may stop that work once the response is sent,
   * and the claim then holds until its lease passes. On Node, Bun and Deno servers it is not needed.
   * The promises it gets never reject.
   *
   * @example
   * // Cloudflare Workers with Hono
   * app.post('/webhooks', (c) => handler.handle(c.req.raw, { waitUntil: c.executionCtx.waitUntil.bind(c.executionCtx) }));
   * // plain Workers: export default { fetch: (request, env, ctx) => handler.handle(request, { waitUntil: ctx.waitUntil.bind(ctx) }) }
   */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

/** The argument of {@link WebhookHandler.drain}. */
export interface DrainOptions {
  /**
   * How long `drain()` waits for the deliveries in hand, in milliseconds, before it resolves with
   * what is still running. The default leaves 5 s of a 30 s termination grace period (Kubernetes'
   * default, also Cloud Run's and ECS's order of magnitude) for closing the server and the rest.
   * @default 25_000
   */
  timeoutMs?: number | undefined;
}

/** An event whose delivery was still in hand when `drain()` resolved. */
export interface DrainedEvent {
  /** The event's `eventId`. */
  eventId: string;
  /** The event's `type`. */
  type: string;
}

/**
 * What `drain()` resolves with. When `timedOut`, the deliveries counted in `inHand` were still
 * running (an `onEvent` that had not settled, a status read, a retried `complete`); their work is
 * not stopped, and if the process exits now their claims lapse when their lease (`leaseMs`) passes,
 * so the provider's redeliveries run those events again. Nothing is lost.
 */
export interface DrainReport {
  /** `true` when `timeoutMs` passed with deliveries still in hand. */
  timedOut: boolean;
  /** How many deliveries were still in hand (0 when every one settled). */
  inHand: number;
  /** The events among them that were identified (a delivery whose body was not yet verified has no event). */
  events: DrainedEvent[];
}

/** What `createWebhookHandler` returns: the same handling behind a Fetch API adapter and a Node one. */
export interface WebhookHandler {
  /**
   * Handles one delivery as a Fetch API `Request` (Hono, Next.js route handlers, Bun, Deno,
   * Cloudflare Workers) and resolves with the `Response` to send. Never rejects for a delivery's
   * own failure; it answers it. On Workers, pass `{ waitUntil }` (see {@link HandleOptions}) so
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
   * has completed or released its claim, or once `timeoutMs` (25 s) has passed, with a
   * {@link DrainReport} of what was still running. Call it on SIGTERM before closing the server.
   *
   * @example
   * process.once('SIGTERM', async () => {
   *   const report = await handler.drain({ timeoutMs: 20_000 });
   *   if (report.timedOut) console.warn('left to redelivery', report.events);
   *   server.close();
   * });
   */
  drain(options?: DrainOptions): Promise<DrainReport>;
}

/** `createWebhookHandler`'s signature (the same in the Web Crypto and the node:crypto build). */
export type CreateWebhookHandler = <Transaction = undefined>(options: WebhookHandlerOptions<Transaction>) => WebhookHandler;

const TEXT = 'text/plain; charset=utf-8';

/** Given once at construction when neither resolver is set: no event can ever be confirmed. */
const NEVER_CONFIRMS = {
  warning: 'never-confirms',
  message:
    'createWebhookHandler has neither resolveOrderExternalId nor resolveWithdrawalExternalId, so no order or withdrawal ' +
    'is ever read and onEvent always gets confirmed: false. Pass resolveOrderExternalId (otc.trade.*, pix.deposit.*) ' +
    'and resolveWithdrawalExternalId (pix.withdrawal.*); logger: false silences this warning.',
} as const;

/** Builds `createWebhookHandler` over one entry point's signing functions. */
export function handlerFactory(signatures: Signatures): CreateWebhookHandler {
  return function createWebhookHandler<Transaction = undefined>(options: WebhookHandlerOptions<Transaction>): WebhookHandler {
    const config = resolveOptions(options);
    const writeLog = logWriter(config.logger);
    const telemetry = new Telemetry(config.telemetry);
    // after every check that can throw: a handler that is never made warns about nothing
    if (config.resolveOrderExternalId === undefined && config.resolveWithdrawalExternalId === undefined) {
      warnOnce(config.logger, NEVER_CONFIRMS);
    }
    /** Every delivery's work and background work still running, with what is known of its event. */
    const inHand = new Map<Promise<unknown>, DeliveryProgress>();
    /** One per delivery in progress: aborting it stops that delivery's body read, if still reading. */
    const bodyReads = new Set<AbortController>();
    let draining = false;

    const log = (result: DeliveryResult, started: number, late?: true): void => {
      const entry: WebhookLogEntry = {
        outcome: result.outcome,
        status: OUTCOME_STATUS[result.outcome],
        ms: Date.now() - started,
      };
      if (result.eventId !== undefined) entry.eventId = result.eventId;
      if (result.type !== undefined) entry.type = result.type;
      if (result.confirmed !== undefined) entry.confirmed = result.confirmed;
      if (late) entry.late = true;
      if (result.error !== undefined) entry.error = logError(result.error);
      writeLog(entry);
    };

    const answer = (result: DeliveryResult): PlainResponse => {
      const status = OUTCOME_STATUS[result.outcome];
      const headers: Record<string, string> = { 'content-type': TEXT, 'cache-control': 'no-store' };
      if (result.outcome === 'method-not-allowed') headers['allow'] = 'POST';
      if (result.outcome === 'unsupported-encoding') headers['accept-encoding'] = 'identity'; // RFC 9110 §15.5.16
      return { status, headers, body: result.message ?? OUTCOME_MESSAGE[result.outcome] };
    };

    /** Delivers `input` and writes the answer to the Node response `res`; never rejects. */
    const deliverTo = (res: NodeResponseLike, input: DeliveryInput): Promise<void> =>
      deliver(input).then(
        (response) => writeNodeResponse(res, response),
        () => writeNodeResponse(res, answer({ outcome: 'failed' })),
      );

    /** Hands `work` (which never rejects) to the runtime's `waitUntil`, if the adapter has one. */
    const keepAlive = (waitUntil: HandleOptions['waitUntil'], work: Promise<unknown>): void => {
      if (waitUntil === undefined) return;
      try {
        waitUntil(work);
      } catch {
        // a waitUntil that throws (e.g. called outside its request) cannot keep it alive; the work goes on
      }
    };

    async function deliver(input: DeliveryInput, waitUntil?: HandleOptions['waitUntil']): Promise<PlainResponse> {
      const started = Date.now();
      // a span per delivery and its duration by outcome, when OpenTelemetry is on
      const use = telemetry.use();
      const observed = use === undefined ? undefined : (await use)?.delivery(input.headers);
      const refused = refusal(input) ?? (draining ? { outcome: 'draining' } : undefined);
      if (refused !== undefined) {
        log(refused, started);
        observed?.answered(refused, OUTCOME_STATUS[refused.outcome], undefined);
        return answer(refused);
      }
      const progress: DeliveryProgress = {};
      const background = (task: Promise<void>): void => {
        const tracked = task.catch((error: unknown) => log({ ...progress, outcome: 'handled', error }, started, true));
        inHand.set(tracked, progress);
        void tracked.finally(() => inHand.delete(tracked));
        keepAlive(waitUntil, tracked);
      };
      const bodyRead = new AbortController();
      bodyReads.add(bodyRead);
      const run = () => runDelivery(config, signatures, input, progress, background, bodyRead.signal);
      const work = (observed === undefined ? run() : observed.run(run)).catch(
        (error: unknown): DeliveryResult => ({ ...progress, outcome: 'failed', error }),
      );
      inHand.set(work, progress);
      void work.finally(() => {
        inHand.delete(work);
        bodyReads.delete(bodyRead);
      });

      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          resolve(undefined);
          // a body still arriving at the deadline is not waited for: nothing is claimed yet
          bodyRead.abort(new BodyDeadlineError(config.responseTimeoutMs));
        }, config.responseTimeoutMs);
      });
      const result = await Promise.race([work, timedOut]);
      clearTimeout(timer);
      if (result !== undefined) {
        log(result, started);
        observed?.answered(result, OUTCOME_STATUS[result.outcome], progress.claim);
        return answer(result);
      }
      const timeout: DeliveryResult = { ...progress, outcome: 'timeout' };
      log(timeout, started);
      observed?.answered(timeout, OUTCOME_STATUS.timeout, progress.claim, true);
      // log never throws, and work never rejects
      keepAlive(waitUntil, work.then((late) => {
        log(late, started, true);
        observed?.late(late);
      }));
      return answer(timeout);
    }

    /** What is still in hand; a delivery and the background work it handed on count once. */
    function report(timedOut: boolean): DrainReport {
      const deliveries = new Set(inHand.values());
      const events: DrainedEvent[] = [];
      for (const { eventId, type } of deliveries) {
        if (eventId !== undefined && type !== undefined) events.push({ eventId, type });
      }
      return { timedOut, inHand: deliveries.size, events };
    }

    return {
      async handle(request: Request, options?: HandleOptions): Promise<Response> {
        if (request === null || typeof request !== 'object' || typeof request.headers?.get !== 'function') {
          throw new TypeError(`handle takes a Fetch API Request, got ${describe(request)}`);
        }
        if (options !== undefined && (options === null || typeof options !== 'object')) {
          throw new TypeError(`handle options must be an object { waitUntil? }, got ${describe(options)}`);
        }
        const waitUntil = options?.waitUntil;
        if (waitUntil !== undefined && typeof waitUntil !== 'function') {
          throw new TypeError(`handle options.waitUntil must be a function (e.g. ctx.waitUntil.bind(ctx)), got ${describe(waitUntil)}`);
        }
        const response = await deliver(
          { method: request.method, headers: request.headers, readBody: (limit, signal) => readRequestBody(request, limit, signal) },
          waitUntil,
        );
        return new Response(response.body, { status: response.status, headers: response.headers });
      },

      node(req: NodeRequestLike, res: NodeResponseLike): void {
        if (!isNodeRequest(req)) {
          throw new TypeError(
            `node takes a Node request (IncomingMessage), got ${describe(req)}; ` +
              'in Fastify use handler.fastify(request, reply), in Koa handler.koa(ctx)',
          );
        }
        if (!isNodeResponse(res)) throw new TypeError(`node takes a Node response (ServerResponse), got ${describe(res)}`);
        void deliverTo(res, nodeDeliveryInput(req));
      },

      async fastify(request: FastifyRequestLike, reply: FastifyReplyLike): Promise<void> {
        const input = fastifyDeliveryInput(request, reply);
        // the answer is written on reply.raw, after Fastify's own reply is set aside
        reply.hijack();
        await deliverTo(reply.raw, input);
      },

      async koa(ctx: KoaContextLike): Promise<void> {
        const input = koaDeliveryInput(ctx);
        // Koa then leaves ctx.res to the adapter (and ctx.status reads the status written)
        ctx.respond = false;
        await deliverTo(ctx.res, input);
      },

      async drain(options?: DrainOptions): Promise<DrainReport> {
        if (options !== undefined && (options === null || typeof options !== 'object')) {
          throw new TypeError(`drain options must be an object { timeoutMs? }, got ${describe(options)}`);
        }
        const timeoutMs = timerMs('drain timeoutMs', options?.timeoutMs, 25_000);
        draining = true;
        // a body still arriving is never waited for: that delivery is answered 503 and redelivered
        for (const bodyRead of bodyReads) bodyRead.abort(new DrainingAbort());
        let timer: ReturnType<typeof setTimeout> | undefined;
        const deadline = new Promise<true>((resolve) => {
          timer = setTimeout(() => resolve(true), timeoutMs);
        });
        try {
          // work in hand may hand on background work (retries of a failed complete): wait for that too
          while (inHand.size > 0) {
            const timedOut = await Promise.race([Promise.allSettled([...inHand.keys()]), deadline]);
            if (timedOut === true) return report(true);
          }
          return report(false);
        } finally {
          clearTimeout(timer);
        }
      },
    };
  };
}
