import { http, HttpResponse, type JsonBodyType } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

export const ORIGIN = 'https://checkout.test';
export const API = `${ORIGIN}/api/v1/partner-api`;
export const PARTNER_ID = 'partner-1';
export const PARTNER_SECRET = 'super-secret-value-123';

export interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
}

/**
 * An msw server for the partner API: a token endpoint that issues `tok-1`, `tok-2`, … (or what
 * `tokenResponse` says) and records every request. Tests add handlers with `server.use`. For the
 * tests that shape raw answers (statuses, headers, bodies); a test that needs only well-formed
 * answers and faults uses the shipped fake (`createFakeCheckout`) instead.
 */
export function mockCheckout() {
  const state = {
    seen: [] as Seen[],
    exchanges: 0,
    expiresIn: 3600,
    tokenResponse: undefined as ((n: number) => Response | JsonBodyType) | undefined,
  };
  const record = (request: Request) => {
    state.seen.push({
      method: request.method,
      path: new URL(request.url).pathname,
      headers: Object.fromEntries(request.headers),
    });
  };
  const server = setupServer(
    http.post(`${API}/auth/token`, () => {
      state.exchanges += 1;
      const custom = state.tokenResponse?.(state.exchanges);
      if (custom instanceof Response) return custom;
      return HttpResponse.json(custom ?? { accessToken: `tok-${state.exchanges}`, tokenType: 'Bearer', expiresIn: state.expiresIn });
    }),
  );
  server.events.on('request:start', ({ request }) => record(request));
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => {
    server.resetHandlers();
    state.seen = [];
    state.exchanges = 0;
    state.expiresIn = 3600;
    state.tokenResponse = undefined;
  });
  afterAll(() => server.close());
  return { server, state };
}

/** A JWT-shaped token (unsigned) whose `exp` is `exp` (epoch seconds): the client only decodes it. */
export function fakeJwt(exp: number, sub = 'partner-1'): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub, exp })}.c2lnbmF0dXJl`;
}

export const order = (externalId: string, extra: object = {}) => ({
  externalId,
  currency: 'USDT',
  settlement: { status: 'Pending', tradeId: 't-1' },
  ...extra,
});
