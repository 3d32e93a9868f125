import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CheckoutClient } from 'checkout-partner-sdk';
import { startServer, type RealServer } from '../client/real-server.js';
import { runCli } from '../cli/run-cli.js';
import { API, ORIGIN, PARTNER_ID, mockCheckout } from '../client/helpers.js';

// Issue 16, item 3: a service echoing a credential `\/`-escaped in JSON, as `\uXXXX` escapes or
// percent-encoded put it in clear in error.message, error.body and error.headers, and
// `checkout-partner me` printed it. Every form is now redacted, in the text and after parsing.

/** A partner secret with the characters that get escaped: `/`, `+`, `=`, `"`, `\`, a space and a non-ASCII letter. */
const SECRET = 'p4rtner/s3cret+key=="\\ é-9f2c';
/** A token with base64's `/` and `+`. */
const TOKEN = 'tok/abc+def/ghi==';

const uEscape = (text: string, upper: boolean) =>
  Array.from(text)
    .map((c) => {
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    })
    .join('');
const lowerPercent = (text: string) => encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** Every encoded form a service, a proxy or a framework may quote a credential in. */
function forms(value: string): Record<string, string> {
  const json = JSON.stringify(value).slice(1, -1);
  return {
    'JSON \\/-escaped': json.replaceAll('/', '\\/'),
    'JSON with \\u002B for +': json.replaceAll('+', '\\u002B'),
    'every character \\uXXXX (lower case)': uEscape(value, false),
    'every character \\uXXXX (upper case)': uEscape(value, true),
    'percent-encoded (upper case)': encodeURIComponent(value),
    'percent-encoded (lower case)': lowerPercent(value),
    'half percent-encoded, half \\u': encodeURIComponent(value.slice(0, 8)) + uEscape(value.slice(8), true),
    'form-encoded (+ for a space)': new URLSearchParams({ v: value }).toString().slice(2),
  };
}

/** Whether `text` shows `value` in clear or in any of the forms above. */
function shows(text: string, value: string): string | undefined {
  if (text.includes(value)) return 'in clear';
  return Object.entries(forms(value)).find(([, form]) => text.includes(form))?.[0];
}

function everythingPrinted(error: unknown): string {
  const e = error as ApiError;
  return [
    e.message,
    e.stack ?? '',
    typeof e.body === 'string' ? e.body : JSON.stringify(e.body),
    JSON.stringify([...e.headers]),
    JSON.stringify(e),
    inspect(e, { showHidden: true, depth: Infinity }),
  ].join('\n');
}

describe('credentials quoted back in an encoded form', () => {
  const { server } = mockCheckout();
  const client = () => new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: SECRET, maxRetries: 0 });

  describe.each(Object.entries(forms(SECRET)))('the partner secret, %s', (_name, form) => {
    it('in a JSON error body (message and a nested field) and a header', async () => {
      server.use(
        http.post(
          `${API}/auth/token`,
          () =>
            new HttpResponse(`{"message":"bad secret ${form}","echo":{"x-partner-secret":"${form}","list":["${form}"]}}`, {
              status: 400,
              headers: { 'content-type': 'application/json', 'x-echo': form, 'x-debug': `secret=${form}; ok` },
            }),
        ),
      );
      const error = await client()
        .getAccessToken()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(shows(everythingPrinted(error), SECRET)).toBeUndefined();
      // what is not the secret is kept
      expect((error as ApiError).message).toContain('bad secret [redacted]');
      expect((error as ApiError).headers.get('x-debug')).toBe('secret=[redacted]; ok');
    });

    it('in a text error body', async () => {
      server.use(http.post(`${API}/auth/token`, () => new HttpResponse(`you sent ${form}`, { status: 400 })));
      const error = await client()
        .getAccessToken()
        .catch((e: unknown) => e);
      expect((error as ApiError).body).toBe('you sent [redacted]');
      expect(shows(everythingPrinted(error), SECRET)).toBeUndefined();
    });
  });

  describe.each(Object.entries(forms(TOKEN)))('the access token, %s', (_name, form) => {
    it('in a business error body, a 2xx body that fails validation, and a header', async () => {
      server.use(
        http.post(`${API}/auth/token`, () => HttpResponse.json({ accessToken: TOKEN, tokenType: 'Bearer', expiresIn: 3600 })),
        http.get(
          `${API}/auth/me`,
          () =>
            new HttpResponse(`{"error":"token ${form} refused"}`, {
              status: 403,
              headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer ${form}` },
            }),
        ),
        http.get(
          `${API}/orders/by-external-id/:id`,
          () =>
            new HttpResponse(`{"externalId":1,"token":"${form}"}`, {
              status: 200,
              headers: { 'content-type': 'application/json', 'x-echo': form },
            }),
        ),
      );
      const c = client();
      for (const call of [() => c.getMe(), () => c.getOrderByExternalId('o-1')]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ApiError);
        expect(shows(everythingPrinted(error), TOKEN)).toBeUndefined();
      }
    });
  });
});

describe('checkout-partner me against a service that echoes the secret', () => {
  let service: RealServer;
  let mode: 'token' | 'me' = 'token';
  let form = '';
  beforeAll(async () => {
    service = await startServer((req, res) => {
      if (mode === 'token' && req.url?.endsWith('/auth/token')) {
        res.writeHead(401, { 'content-type': 'application/json', 'x-echo': form });
        res.end(`{"message":"unknown secret ${form}"}`);
        return true;
      }
      if (mode === 'me' && req.url?.endsWith('/auth/me')) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(`{"message":"bad request with token ${forms('tok-1')['JSON with \\u002B for +']} and secret ${form}"}`);
        return true;
      }
      return false;
    });
  });
  afterAll(() => service.close());

  it.each([
    ['token', 'JSON \\/-escaped'],
    ['token', 'percent-encoded (lower case)'],
    ['me', 'every character \\uXXXX (upper case)'],
  ] as const)(
    'prints no secret (%s endpoint, %s)',
    async (where, name) => {
      mode = where;
      form = forms(SECRET)[name]!;
      const result = await runCli(['me'], {
        env: { CHECKOUT_BASE_URL: service.url, CHECKOUT_PARTNER_ID: 'cli-partner', CHECKOUT_PARTNER_SECRET: SECRET },
      });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/\[redacted\]/);
      expect(shows(result.stdout + result.stderr, SECRET)).toBeUndefined();
    },
    30_000,
  );
});
