/**
 * The fake's msw adapter. It only imports msw's types: the msw functions come in as an argument,
 * from the `testing/msw` entry's static import or from {@link loadMsw}, so `checkout-partner-sdk/testing`
 * (and the CLI's sandbox) load without msw installed.
 */
import type { HttpHandler, http, HttpResponse } from 'msw';
import { partnerApiBase } from '../client/api-base.js';

/** The two msw exports the adapter uses; both exist with these shapes in msw 2 and msw 3. */
export interface MswFunctions {
  readonly http: Pick<typeof http, 'all'>;
  readonly HttpResponse: Pick<typeof HttpResponse, 'error'>;
}

/** What the adapter serves: the fake's whole service ({@link FakeCheckoutCore.respond}). */
export interface MswServable {
  respond(request: Request): Promise<Response | symbol>;
}

/** msw handlers that answer every request below `baseUrl`'s partner API path with the fake. */
export function buildMswHandlers(msw: MswFunctions, fake: MswServable, baseUrl: string): HttpHandler[] {
  const apiBase = partnerApiBase(baseUrl, 'handlers: baseUrl');
  return [
    msw.http.all(`${apiBase}/*`, async ({ request }) => {
      const outcome = await fake.respond(request);
      return outcome instanceof Response ? outcome : msw.HttpResponse.error();
    }),
  ];
}
