// Written without msw's types (msw's functions come in as arguments), so `checkout-partner-sdk/testing` never needs msw.
import { partnerApiBase } from '../client/api-base.js';

export type MswResolver = (info: { request: Request }) => Promise<Response>;

/** The msw exports the adapter uses, in the shapes msw 2 and 3 share. */
export interface MswFunctions<Handler = unknown> {
  readonly http: { all(path: string, resolver: MswResolver): Handler };
  readonly HttpResponse: { error(): Response };
  /** msw's `bypass()`, for `deliverEvent`. */
  readonly bypass?: ((request: Request) => Request) | undefined;
}

export interface MswServable {
  respond(request: Request): Promise<Response | symbol>;
}

export function buildMswHandlers<Handler>(msw: MswFunctions<Handler>, fake: MswServable, baseUrl: string): Handler[] {
  const apiBase = partnerApiBase(baseUrl, 'handlers: baseUrl');
  return [
    msw.http.all(`${apiBase}/*`, async ({ request }) => {
      const outcome = await fake.respond(request);
      return outcome instanceof Response ? outcome : msw.HttpResponse.error();
    }),
  ];
}
