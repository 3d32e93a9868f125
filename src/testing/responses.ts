import { REDACTED } from '../client/redacted.js';

/** Headers whose values the request log never shows. */
const SECRET_HEADERS = new Set(['x-partner-secret', 'cookie', 'proxy-authorization', 'x-provider-signature']);

/** `headers` with secrets replaced by the client's `[redacted]` (`Authorization` keeps its scheme). */
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

export function json(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, ...headers },
  });
}

/** `{ error, message }`: the spec does not show the service's error body. */
export function problem(status: number, error: string, message: string, requestId: string, headers: Record<string, string> = {}): Response {
  return json(status, { error, message }, requestId, headers);
}
