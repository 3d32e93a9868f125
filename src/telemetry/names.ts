// The attribute, span and metric names the SDK emits. They are listed in README.md (Observability)
// and kept stable: a change is a CHANGELOG entry. OpenTelemetry's semantic conventions are used where
// they exist (HTTP client), the `checkout.` namespace for the rest.

/** The instrumentation scope: tracer and meter name. */
export const SCOPE = 'checkout-partner-sdk';

export const ATTR = {
  // HTTP client semantic conventions
  method: 'http.request.method',
  urlTemplate: 'url.template',
  urlFull: 'url.full',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  statusCode: 'http.response.status_code',
  errorType: 'error.type',
  // the SDK's own
  attempts: 'checkout.attempts',
  requestId: 'checkout.request_id',
  tokenWaited: 'checkout.token.waited',
  webhookOutcome: 'checkout.webhook.outcome',
  eventId: 'checkout.webhook.event_id',
  eventType: 'checkout.webhook.event_type',
  confirmed: 'checkout.webhook.confirmed',
  claim: 'checkout.webhook.claim',
  lateOutcome: 'checkout.webhook.late_outcome',
  recordKind: 'checkout.record.kind',
  externalId: 'checkout.record.external_id',
  status: 'checkout.record.status',
  previousStatus: 'checkout.record.previous_status',
  source: 'checkout.change.source',
  changed: 'checkout.tracker.changed',
  pauseMs: 'checkout.pause_ms',
  trackerFailure: 'checkout.tracker.failure',
  handlingCallback: 'checkout.handling.callback',
  handlingReason: 'checkout.handling.reason',
  rate: 'checkout.rate_limit.requests_per_second',
} as const;

export const METRIC = {
  /** Histogram, s: one per client call (its retries included) and per token exchange. Semconv. */
  callDuration: 'http.client.request.duration',
  /** Counter: retries (attempts after the first) of client calls. */
  retries: 'checkout.client.retries',
  /** Counter: token exchanges (POST /auth/token), by outcome (`error.type` when it failed). */
  tokenExchanges: 'checkout.client.token.exchanges',
  /** Counter: retries the retry budget refused (the call failed on the error it had), by route. */
  retryDenied: 'checkout.client.retry_budget.denied',
  /** Counter: times the retry budget ran dry (once per dry spell). */
  retryBudgetExhausted: 'checkout.client.retry_budget.exhausted',
  /** Counter: pauses of every request of a client after a 429 with `Retry-After`. */
  pauses: 'checkout.client.pauses',
  /** Histogram, s: how long a request waited for its turn (concurrency, pace, a pause, the adaptive rate), by route. */
  queueWait: 'checkout.client.queue.duration',
  /** Histogram, s: from a delivery's arrival to its answer, by outcome (its count: deliveries by outcome). */
  deliveryDuration: 'checkout.webhook.delivery.duration',
  /** Histogram, s: how late the tracker saw a status change after its read was due. */
  trackerLag: 'checkout.tracker.lag',
  /** Observable gauge: records the tracker watches, by kind. */
  watched: 'checkout.tracker.watched',
  /** Observable gauge: watched records not read successfully when their normal schedule said (the store's `overdue()`). */
  overdue: 'checkout.tracker.overdue',
  /** Observable gauge, s: how late the most overdue watched record is (0 when none). */
  oldestOverdue: 'checkout.tracker.oldest_overdue',
  /** Counter: the tracker's failures, by `checkout.tracker.failure` (its log entry's event: read, change, store, lease-lost) and `error.type`. */
  trackerFailures: 'checkout.tracker.failures',
  /** Counter: status changes a provider event announces that a poll read found before the event, by kind (lost or late webhooks). */
  foundFirstByRead: 'checkout.tracker.found_first_by_read',
  /** Counter: callbacks (`onEvent`, `onChange`) whose work the SDK stopped holding, by `checkout.handling.callback` and `checkout.handling.reason` (`max-handling`, `drain`, `lease-lost`). */
  handlingAbandoned: 'checkout.handling.abandoned',
} as const;

/** The HTTP client duration buckets advised by the semantic conventions, in seconds. */
export const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Buckets for waits and lags, in seconds: from 10 ms to 10 min (the tracker backs off to ~5 min). */
export const WAIT_BUCKETS_S = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
