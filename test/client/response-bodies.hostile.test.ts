import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, CheckoutClient, CheckoutError, ResponseValidationError } from 'checkout-partner-sdk';

// A hostile (or broken) service: whatever it answers, the client resolves with a record that
// matches the schema and keeps what was sent, or rejects with one of the SDK's typed errors.
// Raw, malformed and hostile responses are the point here, so the service is a hand-rolled `fetch`
// (not the shipped fake, which only answers well-formed bodies); called in process, with no
// interception layer, so hundreds of runs stay quick on a loaded machine.

const ORIGIN = 'https://checkout.test';
const TOKEN = { accessToken: 'tok-hostile', tokenType: 'Bearer', expiresIn: 3600 };

let reply: () => Response = () => Response.json({});
let tokenReply: () => Response = () => Response.json(TOKEN);
const BUSINESS = /^\/api\/v1\/partner-api\/(orders\/by-external-id|withdrawals\/by-external-id|auth\/me)(\/|$)/;
async function service(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const { pathname } = new URL(request.url);
  if (request.method === 'POST' && pathname === '/api/v1/partner-api/auth/token') return tokenReply();
  if (request.method === 'GET' && BUSINESS.test(pathname)) return reply();
  throw new Error(`unexpected request ${request.method} ${pathname}`);
}
afterEach(() => {
  tokenReply = () => Response.json(TOKEN);
});

const newClient = () => new CheckoutClient({ baseUrl: ORIGIN, partnerId: 'p-1', partnerSecret: 's-1', maxRetries: 0, fetch: service });
const reads = [
  (c: CheckoutClient) => c.getOrderByExternalId('o-1'),
  (c: CheckoutClient) => c.getWithdrawalByExternalId('w-1'),
  (c: CheckoutClient) => c.getMe(),
] as const;

const bytes = fc.uint8Array({ maxLength: 200 });
const contentType = fc.constantFrom('application/json', 'text/plain', 'application/octet-stream', 'text/html; charset=utf-8', '');
/** JSON values, with a bias to record-like objects so both branches (valid and invalid) are hit. */
const json = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      externalId: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      status: fc.oneof(fc.string(), fc.boolean()),
      currency: fc.oneof(fc.string(), fc.integer()),
      settlement: fc.oneof(
        fc.constant(null),
        fc.jsonValue({ maxDepth: 2 }),
        fc.record({ status: fc.string(), tradeId: fc.oneof(fc.string(), fc.constant(null)) }),
      ),
      extra: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  ),
);

/** Any status a Response can carry, with the special ones (no body, auth, proxy, retry, redirect) always in the mix. */
const statuses = fc.oneof(
  fc.integer({ min: 200, max: 599 }),
  fc.constantFrom(204, 205, 301, 302, 304, 307, 308, 401, 403, 404, 407, 408, 429, 500, 503),
);

function bytesResponse(body: Uint8Array, type: string, status = 200): Response {
  const nullBody = [204, 205, 304].includes(status);
  return new Response(nullBody ? null : body.slice(), { status, headers: type === '' ? {} : { 'content-type': type } });
}

/** Rejections must be the SDK's typed errors; a 2xx only ever gives ResponseValidationError. */
function expectTyped(error: unknown, status: number): void {
  expect(error).toBeInstanceOf(CheckoutError);
  expect(error).toBeInstanceOf(ApiError);
  expect(typeof (error as Error).name).toBe('string');
  expect((error as Error).message).not.toBe('');
  if (status >= 200 && status < 300) {
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.length).toBeGreaterThan(0);
  }
}

describe('hostile response bodies', () => {
  it('200 with arbitrary bytes: a record, or ResponseValidationError', async () => {
    const client = newClient();
    await fc.assert(
      fc.asyncProperty(bytes, contentType, fc.constantFrom(...reads), async (body, type, read) => {
        reply = () => bytesResponse(body, type);
        const outcome = await read(client).then(
          (record) => ({ record }),
          (error: unknown) => ({ error }),
        );
        if ('error' in outcome) expectTyped(outcome.error, 200);
        else expect(outcome.record).toEqual(JSON.parse(new TextDecoder().decode(body)));
      }),
      { numRuns: 200 },
    );
  });

  it('200 with arbitrary JSON: the record exactly as sent, or ResponseValidationError with issues', async () => {
    const client = newClient();
    await fc.assert(
      fc.asyncProperty(json, fc.constantFrom(0, 1, 2), async (value, which) => {
        reply = () => Response.json(value);
        const read = reads[which];
        const outcome = await read(client).then(
          (record) => ({ record }),
          (error: unknown) => ({ error }),
        );
        const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
        const record = value as Record<string, unknown>;
        if ('error' in outcome) {
          expectTyped(outcome.error, 200);
          // what must have been accepted was not rejected
          if (which === 2) expect(isObject).toBe(false);
          // a record of another externalId than the one asked for is refused too
          if (which === 1) expect(isObject && record.externalId === 'w-1' && typeof record.status === 'string').toBe(false);
          return;
        }
        // every field kept as sent, known or not (as sent on the wire: JSON has no -0)
        expect(outcome.record).toEqual(JSON.parse(JSON.stringify(value)));
        expect(isObject).toBe(true);
        if (which !== 2) expect(record.externalId).toBe(which === 0 ? 'o-1' : 'w-1');
        if (which === 1) expect(typeof record.status).toBe('string');
      }),
      { numRuns: 200 },
    );
  });

  it('any status with arbitrary bytes: a record for a valid 2xx, else a typed ApiError carrying the status', async () => {
    await fc.assert(
      fc.asyncProperty(statuses, bytes, contentType, async (status, body, type) => {
        const client = newClient(); // a fresh token cache: a 401 must not poison the next run
        reply = () => bytesResponse(body, type, status);
        const outcome = await client.getOrderByExternalId('o-1').then(
          (record) => ({ record }),
          (error: unknown) => ({ error }),
        );
        if ('record' in outcome) {
          expect(status).toBeGreaterThanOrEqual(200);
          expect(status).toBeLessThan(300);
          return;
        }
        expectTyped(outcome.error, status);
        const error = outcome.error as ApiError;
        if (status >= 300) expect(error.status).toBe(status);
      }),
      { numRuns: 200 },
    );
  });

  it('the token exchange answering arbitrary JSON: the token, or a typed error before any business call', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.record(
            {
              accessToken: fc.oneof(fc.string(), fc.integer()),
              tokenType: fc.oneof(fc.constant('Bearer'), fc.string(), fc.constant(null)),
              expiresIn: fc.oneof(fc.integer({ min: -10, max: 10_000 }), fc.double(), fc.string()),
            },
            { requiredKeys: [] },
          ),
        ),
        async (value) => {
          tokenReply = () => Response.json(value);
          const client = newClient();
          const outcome = await client.getAccessToken().then(
            (token) => ({ token }),
            (error: unknown) => ({ error }),
          );
          if ('error' in outcome) {
            expectTyped(outcome.error, 200);
            return;
          }
          const record = value as Record<string, unknown>;
          expect(outcome.token).toBe(record.accessToken);
          expect(typeof record.accessToken === 'string' && record.accessToken !== '').toBe(true);
          expect(typeof record.expiresIn === 'number' && record.expiresIn > 0).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
