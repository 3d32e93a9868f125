// The names the SDK emits, listed in docs/observability.md and stable (a change is a CHANGELOG entry):
// OpenTelemetry's semantic conventions where they exist, the `checkout.` namespace for the rest.

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

/** The metric names; each instrument's kind, unit and description are in instruments.ts. */
export const METRIC = {
  callDuration: 'http.client.request.duration',
  retries: 'checkout.client.retries',
  tokenExchanges: 'checkout.client.token.exchanges',
  retryDenied: 'checkout.client.retry_budget.denied',
  retryBudgetExhausted: 'checkout.client.retry_budget.exhausted',
  pauses: 'checkout.client.pauses',
  queueWait: 'checkout.client.queue.duration',
  deliveryDuration: 'checkout.webhook.delivery.duration',
  trackerLag: 'checkout.tracker.lag',
  watched: 'checkout.tracker.watched',
  overdue: 'checkout.tracker.overdue',
  oldestOverdue: 'checkout.tracker.oldest_overdue',
  trackerFailures: 'checkout.tracker.failures',
  foundFirstByRead: 'checkout.tracker.found_first_by_read',
  /** Counter: callbacks (`onEvent`, `onChange`) whose work the SDK stopped holding, by `checkout.handling.callback` and `checkout.handling.reason` (`max-handling`, `drain`, `lease-lost`). */
  handlingAbandoned: 'checkout.handling.abandoned',
} as const;

/** The HTTP client duration buckets advised by the semantic conventions, in seconds. */
export const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Buckets for waits and lags, in seconds: from 10 ms to 10 min (the tracker backs off to ~5 min). */
export const WAIT_BUCKETS_S = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
