import { REDACTED } from '../client/redacted.js';

/** Headers whose values the request log never shows. */
const SECRET_HEADERS = new Set(['x-partner-secret', 'cookie', 'proxy-authorization', 'x-provider-signature']);

/**
 * `headers` as a plain object with every secret replaced by `[redacted]` (the client's own mark):
 * the partner secret, cookies, and the credentials of `Authorization` (its scheme is kept:
 * `Bearer [redacted]`).
 */
export function maskHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name === 'authorization') {
      const scheme = /^\s*(\S+)\s+\S/.exec(value)?.[1];
      out[name] = scheme === undefined ? REDACTED : `${scheme} ${REDACTED}`;
    } else {
      out[name] = SECRET_HEADERS.has(name) ? REDACTED : value;
    }
  });
  return out;
}

/** A JSON response with the fake's request id. */
export function json(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, ...headers },
  });
}

/** An error response: `{ error, message }` (the spec does not show the service's error body). */
export function problem(status: number, error: string, message: string, requestId: string, headers: Record<string, string> = {}): Response {
  return json(status, { error, message }, requestId, headers);
}
