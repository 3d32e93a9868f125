import type { Counter, Histogram, Meter, ObservableGauge } from '@opentelemetry/api';
import { DURATION_BUCKETS_S, METRIC, WAIT_BUCKETS_S } from './names.js';

/** Every instrument the SDK records with, made once per meter. */
export class Instruments {
  /** The meter they were made with (batch callbacks observe several gauges at once). */
  readonly meter: Meter;
  readonly callDuration: Histogram;
  readonly retries: Counter;
  readonly tokenExchanges: Counter;
  readonly retryDenied: Counter;
  readonly retryBudgetExhausted: Counter;
  readonly pauses: Counter;
  readonly queueWait: Histogram;
  readonly deliveryDuration: Histogram;
  readonly trackerLag: Histogram;
  readonly watched: ObservableGauge;
  readonly overdue: ObservableGauge;
  readonly oldestOverdue: ObservableGauge;
  readonly trackerFailures: Counter;
  readonly foundFirstByRead: Counter;
  readonly handlingAbandoned: Counter;

  constructor(meter: Meter) {
    this.meter = meter;
    this.callDuration = meter.createHistogram(METRIC.callDuration, {
      description: 'Duration of the checkout service calls (a call and its retries; a token exchange).',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    });
    this.retries = meter.createCounter(METRIC.retries, {
      description: 'Retries of checkout service calls (attempts after the first).',
      unit: '{retry}',
    });
    this.tokenExchanges = meter.createCounter(METRIC.tokenExchanges, {
      description: 'Token exchanges (POST /auth/token).',
      unit: '{exchange}',
    });
    this.retryDenied = meter.createCounter(METRIC.retryDenied, {
      description: 'Retries the retry budget refused: the call failed on the error it had.',
      unit: '{retry}',
    });
    this.retryBudgetExhausted = meter.createCounter(METRIC.retryBudgetExhausted, {
      description: 'Times the retry budget ran dry (once per dry spell).',
      unit: '{occurrence}',
    });
    this.pauses = meter.createCounter(METRIC.pauses, {
      description: "Pauses of all of a client's requests after a 429 with Retry-After.",
      unit: '{pause}',
    });
    this.queueWait = meter.createHistogram(METRIC.queueWait, {
      description: 'How long a request waited for its turn (rateLimit concurrency and pace, a Retry-After pause, the adaptive rate).',
      unit: 's',
      advice: { explicitBucketBoundaries: WAIT_BUCKETS_S },
    });
    this.deliveryDuration = meter.createHistogram(METRIC.deliveryDuration, {
      description: 'Webhook deliveries, from arrival to answer, by outcome.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    });
    this.trackerLag = meter.createHistogram(METRIC.trackerLag, {
      description: 'How late the status tracker saw a status change after its read was due.',
      unit: 's',
      advice: { explicitBucketBoundaries: WAIT_BUCKETS_S },
    });
    this.watched = meter.createObservableGauge(METRIC.watched, { description: 'Records the status tracker watches.', unit: '{record}' });
    this.overdue = meter.createObservableGauge(METRIC.overdue, {
      description: 'Watched records not read successfully when their normal schedule said (a backlog, an outage, or no tracker running).',
      unit: '{record}',
    });
    this.oldestOverdue = meter.createObservableGauge(METRIC.oldestOverdue, {
      description: 'How late the most overdue watched record is (0 when none).',
      unit: 's',
    });
    this.trackerFailures = meter.createCounter(METRIC.trackerFailures, {
      description: 'Failures of the status tracker: reads, onChange calls, store operations, leases lost.',
      unit: '{failure}',
    });
    this.foundFirstByRead = meter.createCounter(METRIC.foundFirstByRead, {
      description: 'Status changes a provider event announces that a poll read found before the event (lost or late webhooks).',
      unit: '{change}',
    });
    this.handlingAbandoned = meter.createCounter(METRIC.handlingAbandoned, {
      description:
        'Callbacks (onEvent, onChange) whose work the SDK stopped holding: past maxHandlingMs, after drain() gave up, or a lease lost.',
      unit: '{callback}',
    });
  }
}
