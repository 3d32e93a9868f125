/** The framework a delivery came through, for the fix a 500 names; NestJS's request has Express's shape, so Express's fix names Nest's. */
export type Framework = 'express' | 'fastify' | 'koa' | 'node';

/** What a body parser left behind: the request body was parsed, or the stream was read and nothing kept. */
export type RawBodyLoss = 'parsed' | 'consumed';

const LOSS: Record<RawBodyLoss, string> = {
  parsed: 'The webhook route received a parsed request body: a body parser consumed the raw body that the signature is computed over.',
  consumed:
    'The webhook route received a request whose body stream was already read by something else and left no raw body, ' +
    'which the signature is computed over.',
};

const FIX: Record<Framework, string> = {
  express:
    'In Express, mount the webhook route before express.json() (handler.node reads the body itself) or give it ' +
    "express.raw({ type: 'application/json' }), e.g. " +
    "app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => handler.node(req, res)). " +
    'In NestJS, create the app with NestFactory.create(AppModule, { rawBody: true }), which keeps req.rawBody.',
  fastify:
    "In Fastify, register the webhook route in its own plugin with a content-type parser that keeps the bytes (parseAs: 'buffer'), " +
    "e.g. app.register(async (webhooks) => { webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, " +
    "(request, body, done) => done(null, body)); webhooks.post('/webhooks', (request, reply) => handler.fastify(request, reply)); }), " +
    'or use fastify-raw-body (request.rawBody) on this route.',
  koa:
    'In Koa, use @koa/bodyparser or koa-bodyparser (they keep ctx.request.rawBody) or no body parser in front of the webhook route, ' +
    "e.g. router.post('/webhooks', (ctx) => handler.koa(ctx)).",
  node:
    'Call handler.node(req, res) before anything reads the request stream, or leave the raw bytes in req.rawBody or req.body. ' +
    'Through a framework, use its adapter: handler.fastify(request, reply) in Fastify (not handler.node(request.raw, reply.raw)), ' +
    "handler.koa(ctx) in Koa, express.raw({ type: 'application/json' }) in Express, NestFactory.create(AppModule, { rawBody: true }) in NestJS.",
};

/** The 500 message for a route whose raw body is gone: what happened and how to fix it in `framework`. */
export function rawBodyFix(framework: Framework, loss: RawBodyLoss): string {
  return `${LOSS[loss]} ${FIX[framework]}`;
}

/** `express` when `req` has Express's shape (`req.app`, set on every request Express routes), else `node`. */
export function nodeFramework(req: object): Framework {
  const app = (req as { app?: unknown }).app;
  return typeof app === 'function' || (app !== null && typeof app === 'object') ? 'express' : 'node';
}
