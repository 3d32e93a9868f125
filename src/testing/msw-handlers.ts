/**
 * The only module of the testing kit that imports msw, so the CLI's sandbox (which imports the fake's
 * core directly) never loads it. The `testing` entry does load it: `handlers()` is synchronous.
 */
import { http, HttpResponse, type HttpHandler } from 'msw';
import { partnerApiBase } from '../internal/api-base.js';

/** msw handlers that answer every request below `baseUrl`'s partner API path with `respond`. */
export function buildMswHandlers(respond: (request: Request) => Promise<Response | symbol>, baseUrl: string): HttpHandler[] {
  const apiBase = partnerApiBase(baseUrl, 'handlers: baseUrl');
  return [
    http.all(`${apiBase}/*`, async ({ request }) => {
      const outcome = await respond(request);
      return outcome instanceof Response ? outcome : HttpResponse.error();
    }),
  ];
}
