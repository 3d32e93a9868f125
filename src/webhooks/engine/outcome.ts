/**
 * How a delivery ended, and its HTTP status:
 * - `method-not-allowed`: not a POST (405)
 * - `unsupported-encoding`: a `content-encoding` other than identity (415)
 * - `handled`: `onEvent` resolved and the event was marked done (200)
 * - `duplicate`: the event was already done (200)
 * - `in-flight`: a claim on it holds (409, `Retry-After` the seconds left on its lease)
 * - `bad-signature`: signature missing or wrong (401)
 * - `invalid`: not a valid event (400)
 * - `too-large`: the body is over `maxBodyBytes` (413)
 * - `aborted`: the sender closed the connection mid-body; nothing verified or claimed (400)
 * - `failed`: `onEvent`, a resolver or a status read failed (claim released), or the event was given up (claim lapses) (500)
 * - `misconfigured`: a body parser consumed the raw body before the adapter (500)
 * - `timeout`: not finished within `responseTimeoutMs`; the work goes on (503)
 * - `store-unavailable`: the event store failed to claim (503)
 * - `secret-unavailable`: the `secret` function threw or returned no usable secret (503)
 * - `draining`: `drain()` was called (503)
 * @inline
 */
export type WebhookOutcome =
  | 'method-not-allowed'
  | 'unsupported-encoding'
  | 'handled'
  | 'duplicate'
  | 'in-flight'
  | 'bad-signature'
  | 'invalid'
  | 'too-large'
  | 'aborted'
  | 'failed'
  | 'misconfigured'
  | 'timeout'
  | 'store-unavailable'
  | 'secret-unavailable'
  | 'draining';

export const OUTCOME_STATUS: Readonly<Record<WebhookOutcome, number>> = {
  'method-not-allowed': 405,
  'unsupported-encoding': 415,
  handled: 200,
  duplicate: 200,
  'in-flight': 409,
  'bad-signature': 401,
  invalid: 400,
  'too-large': 413,
  aborted: 400,
  failed: 500,
  misconfigured: 500,
  timeout: 503,
  'store-unavailable': 503,
  'secret-unavailable': 503,
  draining: 503,
};

/** Never a secret, a signature or the body. */
export const OUTCOME_MESSAGE: Readonly<Record<WebhookOutcome, string>> = {
  'method-not-allowed': 'Method Not Allowed: webhook deliveries are POST requests',
  'unsupported-encoding':
    'Unsupported Media Type: the body has a content-encoding other than identity; send it uncompressed, ' +
    'as the signature is computed over the raw bytes',
  handled: 'OK: event handled',
  duplicate: 'OK: event already handled',
  'in-flight': 'Conflict: claimed; retry later',
  'bad-signature': 'Unauthorized: missing or invalid signature',
  invalid: 'Bad Request: the body is not a valid event',
  'too-large': 'Payload Too Large',
  aborted: 'Bad Request: the request body did not arrive whole',
  failed: 'Internal Server Error: the event was not handled; redeliver it',
  misconfigured: 'Internal Server Error: the raw request body is not available',
  timeout: 'Service Unavailable: still handling the event; redeliver it later',
  'store-unavailable': 'Service Unavailable: the event store is unavailable; redeliver it later',
  'secret-unavailable': 'Service Unavailable: the signing secret is unavailable; redeliver it later',
  draining: 'Service Unavailable: shutting down; redeliver it later',
};
