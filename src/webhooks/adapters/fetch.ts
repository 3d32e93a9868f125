import { typeName } from '../../internal/type-name.js';
import { readRequestBody } from '../engine/body.js';
import type { HandleOptions, WebhookEngine } from '../engine/lifecycle.js';

/** `handler.handle(request, options?)`: a Fetch API `Request` in, the `Response` to send out. */
export function fetchAdapter(engine: WebhookEngine): (request: Request, options?: HandleOptions) => Promise<Response> {
  return async function handle(request: Request, options?: HandleOptions): Promise<Response> {
    if (request === null || typeof request !== 'object' || typeof request.headers?.get !== 'function') {
      throw new TypeError(`handle takes a Fetch API Request, got ${typeName(request)}`);
    }
    if (options !== undefined && (options === null || typeof options !== 'object')) {
      throw new TypeError(`handle options must be an object { waitUntil? }, got ${typeName(options)}`);
    }
    const waitUntil = options?.waitUntil;
    if (waitUntil !== undefined && typeof waitUntil !== 'function') {
      throw new TypeError(`handle options.waitUntil must be a function (e.g. ctx.waitUntil.bind(ctx)), got ${typeName(waitUntil)}`);
    }
    const response = await engine.deliver(
      { method: request.method, headers: request.headers, readBody: (limit, signal) => readRequestBody(request, limit, signal) },
      waitUntil,
    );
    return new Response(response.body, { status: response.status, headers: response.headers });
  };
}
