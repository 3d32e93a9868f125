/**
 * The only module of the testing kit that imports msw (an optional peer dependency), so the rest of
 * the kit (the real server, the CLI's sandbox) works without it.
 */
import { http, HttpResponse, type HttpHandler } from 'msw';
import { API_PATH } from './routes.js';

/** msw handlers that answer every request below `baseUrl`'s partner API path with `respond`. */
export function buildMswHandlers(respond: (request: Request) => Promise<Response | symbol>, baseUrl: string): HttpHandler[] {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError('handlers: baseUrl must be an absolute http(s) URL such as "https://checkout.test"');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`handlers: baseUrl must use http or https, got "${url.protocol}"`);
  }
  // The same normalisation as the client: the API path is appended unless already there.
  const path = url.pathname.replace(/\/+$/, '');
  const apiBase = `${url.origin}${path.endsWith(API_PATH) ? path : `${path}${API_PATH}`}`;
  return [
    http.all(`${apiBase}/*`, async ({ request }) => {
      const outcome = await respond(request);
      return outcome instanceof Response ? outcome : HttpResponse.error();
    }),
  ];
}
