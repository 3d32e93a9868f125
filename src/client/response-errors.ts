// The errors of a call the service answered, with the credentials the request carried redacted.
import {
  ApiError,
  apiErrorForStatus,
  AuthenticationError,
  ResponseTooLargeError,
  ResponseValidationError,
  type ValidationIssue,
} from '../errors.js';
import type { BodyTooLarge } from './read-body.js';
import { credentialValues, Redactor } from './redact.js';

/** What the errors need of the transport's `SendOptions`. */
interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  alsoRedact?: string | undefined;
  trace: { attempts: number };
}

export function labelOf({ method, path }: Pick<Sent, 'method' | 'path'>): string {
  return `${method.toUpperCase()} ${path}`;
}

function credentials(options: Sent): Redactor {
  return new Redactor(credentialValues(options));
}

/** An error status, or a redirect (never followed). */
export function statusError(response: Response, text: string, options: Sent): ApiError {
  const label = labelOf(options);
  const { attempts } = options.trace;
  const sent = credentials(options);
  if (response.status >= 300 && response.status < 400) {
    const raw = redirectTarget(response.headers.get('location'), response.url);
    const location = raw === undefined ? undefined : sent.text(raw);
    // the Location's query may carry a token: origin and path only, and no body (it quotes the Location)
    const headers = sent.headers(response.headers, true);
    if (location === undefined) headers.delete('location');
    else headers.set('location', location);
    return new ApiError(
      `${response.status} from ${label}: the service answered with a redirect${location === undefined ? '' : ` to ${location}`}, ` +
        'which the client never follows (it would carry the credentials elsewhere); check baseUrl (https rather than http? the right host and path?)',
      { headers, request: label, attempts, status: response.status },
    );
  }
  const headers = sent.headers(response.headers, false);
  return apiErrorForStatus(response.status, { headers, body: errorBody(response, sent.text(text), sent), request: label, attempts });
}

export function tooLarge(error: BodyTooLarge, options: Sent): ResponseTooLargeError {
  const label = labelOf(options);
  return new ResponseTooLargeError(
    `${error.status} from ${label}: the response body is larger than maxResponseBytes (${error.limitBytes} bytes), so it was cut off ` +
      'and the request aborted; if the service really sends bodies this large, raise the client option maxResponseBytes',
    {
      status: error.status,
      headers: credentials(options).headers(error.headers, false),
      request: label,
      limitBytes: error.limitBytes,
      attempts: options.trace.attempts,
    },
  );
}

export function notJson(response: Response, text: string, options: Sent): ResponseValidationError {
  const label = labelOf(options);
  const sent = credentials(options);
  return new ResponseValidationError(`${response.status} from ${label}: the body is not JSON`, {
    status: response.status,
    headers: sent.headers(response.headers, false),
    request: label,
    body: sent.text(text),
    attempts: options.trace.attempts,
    issues: [{ code: 'invalid_json', path: [], message: 'The response body is not JSON' }],
  });
}

export function mismatch(
  response: Response,
  text: string,
  data: unknown,
  found: readonly ValidationIssue[],
  options: Sent,
): ResponseValidationError {
  const label = labelOf(options);
  const issues = found.map(({ code, path, message }) => ({ code, path, message }));
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` at ${first.path.map(String).join('.')}` : '';
  const sent = credentials(options);
  const clean = sent.text(text);
  return new ResponseValidationError(
    `${response.status} from ${label}: the body does not match the expected shape${where}: ${first?.message ?? 'invalid'}`,
    {
      status: response.status,
      headers: sent.headers(response.headers, false),
      request: label,
      body: clean === text ? sent.value(data) : sent.value(parsedOr(clean)),
      issues,
      attempts: options.trace.attempts,
    },
  );
}

/** A record of another `externalId`; the one received is the service's text, escaped and cut short. */
export function wrongRecord(response: Response, text: string, received: unknown, asked: string, options: Sent): ResponseValidationError {
  const label = labelOf(options);
  const sent = credentials(options);
  const shown =
    typeof received === 'string' ? JSON.stringify(received.length > 200 ? `${received.slice(0, 200)}…` : received) : typeof received;
  return new ResponseValidationError(
    `${response.status} from ${label}: the service answered with the record of externalId ${sent.text(shown)}, not the one asked for (${JSON.stringify(asked)}); ` +
      'the record was refused (a caching proxy or a service fault answering for another record?)',
    {
      status: response.status,
      headers: sent.headers(response.headers, false),
      request: label,
      body: sent.value(parsedOr(sent.text(text))),
      issues: [
        {
          code: 'custom',
          path: ['externalId'],
          message: `Expected the record of externalId ${JSON.stringify(asked)}, received ${sent.text(shown)}`,
        },
      ],
      attempts: options.trace.attempts,
    },
  );
}

/** The exchange's 401, saying what it means and what the client does next. */
export function credentialsRefused(error: AuthenticationError): AuthenticationError {
  const detail = error.message.replace(/^401 from POST \/auth\/token:? ?/, '');
  return new AuthenticationError(
    `401 from POST /auth/token: the partner credentials (partnerId and partnerSecret) were refused${detail === '' ? '' : ` (${detail})`}; ` +
      'calls fail at once with this error until the next exchange, tried after a back-off of about 1 s doubling to about 30 s',
    { status: error.status, headers: error.headers, body: error.body, request: 'POST /auth/token', attempts: error.attempts },
  );
}

/** A refused token response with every string masked: it may hold a working token under any name. */
export function withoutToken(error: ResponseValidationError): ResponseValidationError {
  return new ResponseValidationError(error.message, {
    status: error.status,
    headers: error.headers,
    body: maskStrings(error.body, 0),
    issues: error.issues,
    attempts: error.attempts,
  });
}

function maskStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return '[redacted]';
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[redacted]';
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskStrings(item, depth + 1)]));
}

/** A redirect's `Location` as origin and path only. */
function redirectTarget(location: string | null, responseUrl: string): string | undefined {
  if (location === null) return undefined;
  try {
    const url = new URL(location, responseUrl || undefined);
    return url.origin === 'null' ? url.protocol : `${url.origin}${url.pathname}`;
  } catch {
    return undefined;
  }
}

const JSON_TYPE = /[/+]json\b/i;

/** An error body as `ApiError.body`: parsed JSON (redacted again once parsed) when it says it is JSON, else the text. */
function errorBody(response: Response, text: string, sent: Redactor): unknown {
  if (text === '') return undefined;
  return JSON_TYPE.test(response.headers.get('content-type') ?? '') ? sent.value(parsedOr(text)) : text;
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
