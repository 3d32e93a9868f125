// A webhook route on Cloudflare Workers with Hono (deploy with wrangler; `main` = this file).
// A Worker may stop a request's work once its response is sent: pass the request's waitUntil, so an
// event still being handled when the handler answers 503 (past responseTimeoutMs) is finished, and its
// claim completed or released, instead of being cut off with the claim held until its lease passes.
import { Hono, type ExecutionContext } from 'hono';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, MemoryEventStore, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';

/** A Hono app with POST /webhooks that hands late work to the Worker's `waitUntil`. */
export function createWorkerApp(options: WebhookHandlerOptions): Hono {
  const handler = createWebhookHandler(options);
  const app = new Hono();
  app.post('/webhooks', (c) => handler.handle(c.req.raw, { waitUntil: c.executionCtx.waitUntil.bind(c.executionCtx) }));
  return app;
}

/** The Worker's bindings (wrangler secrets). */
export interface Env {
  WEBHOOK_SIGNING_SECRET: string;
  CHECKOUT_BASE_URL: string;
  CHECKOUT_PARTNER_ID: string;
  CHECKOUT_PARTNER_SECRET: string;
}

// Workers hand bindings to fetch, so the app is made on the first request and reused by the isolate.
// Isolates do not share memory: use a shared EventStore (e.g. on Redis over HTTP) for more than one.
let app: Hono | undefined;

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
    app ??= createWorkerApp({
      secret: env.WEBHOOK_SIGNING_SECRET.split(','),
      client: new CheckoutClient({
        baseUrl: env.CHECKOUT_BASE_URL,
        partnerId: env.CHECKOUT_PARTNER_ID,
        partnerSecret: env.CHECKOUT_PARTNER_SECRET,
      }),
      store: new MemoryEventStore(),
      resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-of-${event.tradeId}` : undefined),
      onEvent: ({ event, confirmed }) => console.log(event.type, event.eventId, { confirmed }),
    });
    return app.fetch(request, env, ctx);
  },
};
