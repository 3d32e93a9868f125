/**
 * The fake's msw adapter, written without msw's types: the msw functions come in as arguments,
 * from the `testing/msw` entry's static import or from {@link loadMsw}, so neither
 * `checkout-partner-sdk/testing` (and the CLI's sandbox) nor its declarations need msw.
 */
import { partnerApiBase } from '../client/api-base.js';

/** A resolver as msw's `http.all` calls it (msw 2 and 3 pass `{ request }`). */
export type MswResolver = (info: { request: Request }) => Promise<Response>;

/**
 * The two msw exports the adapter uses, as far as it uses them; both exist with these shapes in
 * msw 2 and msw 3. `Handler` is msw's handler type where msw's types are at hand (`testing/msw`).
 */
export interface MswFunctions<Handler = unknown> {
  readonly http: { all(path: string, resolver: MswResolver): Handler };
  readonly HttpResponse: { error(): Response };
  /** msw's `bypass()`: the request, marked so msw sends it as it is (used by `deliverEvent`). */
  readonly bypass?: ((request: Request) => Request) | undefined;
}

/** What the adapter serves: the fake's whole service ({@link FakeCheckoutCore.respond}). */
export interface MswServable {
  respond(request: Request): Promise<Response | symbol>;
}

/** msw handlers that answer every request below `baseUrl`'s partner API path with the fake. */
export function buildMswHandlers<Handler>(msw: MswFunctions<Handler>, fake: MswServable, baseUrl: string): Handler[] {
  const apiBase = partnerApiBase(baseUrl, 'handlers: baseUrl');
  return [
    msw.http.all(`${apiBase}/*`, async ({ request }) => {
      const outcome = await fake.respond(request);
      return outcome instanceof Response ? outcome : msw.HttpResponse.error();
    }),
  ];
}
