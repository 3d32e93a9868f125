import { describe } from '../internal/path.js';
import { readRequestBody } from './body.js';
import { runDelivery, type DeliveryInput, type DeliveryProgress, type DeliveryResult } from './delivery.js';
import type { Hmac } from './hmac.js';
import { writeLog, type WebhookLogEntry } from './logger.js';
import { nodeDeliveryInput, writeNodeResponse, type NodeRequestLike, type NodeResponseLike, type PlainResponse } from './node-adapter.js';
import { resolveOptions, type WebhookHandlerOptions } from './options.js';
import { OUTCOME_MESSAGE, OUTCOME_STATUS } from './outcome.js';
import { createSignatures } from './signature.js';

/** What `createWebhookHandler` returns: the same handling behind a Fetch API adapter and a Node one. */
export interface WebhookHandler {
  /**
   * Handles one delivery as a Fetch API `Request` (Hono, Next.js route handlers, Bun, Deno,
   * Cloudflare Workers) and resolves with the `Response` to send. Never rejects for a delivery's
   * own failure; it answers it.
   */
  handle(request: Request): Promise<Response>;
  /**
   * Handles one delivery on node:http, Express or Fastify's raw request/response. It reads the
   * raw body from the request stream itself (bounded by `maxBodyBytes`), so the route needs no
   * body parser; bytes or text left by `express.raw()` / `express.text()` are used as they are.
   */
  node(req: NodeRequestLike, res: NodeResponseLike): void;
  /**
   * Stops taking new deliveries (they are answered 503, so the provider redelivers them) and
   * resolves once every delivery in hand has completed or released its claim: call it on SIGTERM
   * before closing the server.
   */
  drain(): Promise<void>;
}

/** `createWebhookHandler`'s signature (the same in the Web Crypto and the node:crypto build). */
export type CreateWebhookHandler = (options: WebhookHandlerOptions) => WebhookHandler;

const TEXT = 'text/plain; charset=utf-8';

/** Builds `createWebhookHandler` over one HMAC implementation. */
export function handlerFactory(hmac: Hmac): CreateWebhookHandler {
  const signatures = createSignatures(hmac);

  return function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
    const config = resolveOptions(options);
    const inHand = new Set<Promise<unknown>>();
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
      if (result.error !== undefined) entry.error = result.error;
      writeLog(config.logger, entry);
    };

    const answer = (result: DeliveryResult): PlainResponse => {
      const status = OUTCOME_STATUS[result.outcome];
      const headers = { 'content-type': TEXT, 'cache-control': 'no-store' };
      return { status, headers, body: result.message ?? OUTCOME_MESSAGE[result.outcome] };
    };

    async function deliver(input: DeliveryInput): Promise<PlainResponse> {
      const started = Date.now();
      if (draining) {
        const result: DeliveryResult = { outcome: 'draining' };
        log(result, started);
        return answer(result);
      }
      const progress: DeliveryProgress = {};
      const background = (task: Promise<void>): void => {
        const tracked = task.catch((error: unknown) => log({ ...progress, outcome: 'handled', error }, started, true));
        inHand.add(tracked);
        void tracked.finally(() => inHand.delete(tracked));
      };
      const work = runDelivery(config, signatures, input, progress, background).catch(
        (error: unknown): DeliveryResult => ({ ...progress, outcome: 'failed', error }),
      );
      inHand.add(work);
      void work.finally(() => inHand.delete(work));

      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), config.responseTimeoutMs);
      });
      const result = await Promise.race([work, timedOut]);
      clearTimeout(timer);
      if (result !== undefined) {
        log(result, started);
        return answer(result);
      }
      const timeout: DeliveryResult = { ...progress, outcome: 'timeout' };
      log(timeout, started);
      void work.then((late) => log(late, started, true));
      return answer(timeout);
    }

    return {
      async handle(request: Request): Promise<Response> {
        if (request === null || typeof request !== 'object' || typeof request.headers?.get !== 'function') {
          throw new TypeError(`handle takes a Fetch API Request, got ${describe(request)}`);
        }
        const response = await deliver({
          headers: request.headers,
          readBody: (limit) => readRequestBody(request, limit),
        });
        return new Response(response.body, { status: response.status, headers: response.headers });
      },

      node(req: NodeRequestLike, res: NodeResponseLike): void {
        if (req === null || typeof req !== 'object' || typeof req[Symbol.asyncIterator] !== 'function') {
          throw new TypeError(`node takes a Node request (IncomingMessage), got ${describe(req)}`);
        }
        if (res === null || typeof res !== 'object' || typeof res.end !== 'function' || typeof res.setHeader !== 'function') {
          throw new TypeError(`node takes a Node response (ServerResponse), got ${describe(res)}`);
        }
        deliver(nodeDeliveryInput(req)).then(
          (response) => writeNodeResponse(res, response),
          () => writeNodeResponse(res, answer({ outcome: 'failed' })),
        );
      },

      async drain(): Promise<void> {
        draining = true;
        // work in hand may hand on background work (retries of a failed complete): wait for that too
        while (inHand.size > 0) await Promise.allSettled([...inHand]);
      },
    };
  };
}
