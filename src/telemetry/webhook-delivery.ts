import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import { ignoreFailure } from '../internal/ignore-failure.js';
import type { OtelApiModule } from './api.js';
import { errorType } from './error-type.js';
import type { Instruments } from './instruments.js';
import { ATTR } from './names.js';

/** What the telemetry reads of a delivery's result (the handler's `DeliveryResult`). */
export interface DeliveryFacts {
  outcome: string;
  eventId?: string | undefined;
  type?: string | undefined;
  confirmed?: boolean | undefined;
  error?: unknown;
}

/** What the event store answered the claim. */
export type ClaimAnswer = 'claimed' | 'in-flight' | 'done' | 'failed';

/** The store's answer when the delivery did not record one (a transactional store): read from the outcome. */
const CLAIM_OF_OUTCOME: Record<string, ClaimAnswer> = {
  handled: 'claimed',
  duplicate: 'done',
  'in-flight': 'in-flight',
  'store-unavailable': 'failed',
};

const HEADERS_GETTER = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => [...carrier.keys()],
};

/** An observed webhook delivery: a child of the active span, else a SERVER span from its `traceparent`; duration by outcome. */
export class ObservedDelivery {
  readonly #api: OtelApiModule;
  readonly #span: Span | undefined;
  readonly #context: Context;
  readonly #instruments: Instruments | undefined;
  readonly #started = performance.now();

  constructor(api: OtelApiModule, tracer: Tracer | undefined, instruments: Instruments | undefined, headers: Headers) {
    this.#api = api;
    this.#instruments = instruments;
    let parent = api.context.active();
    const joined = api.trace.getSpan(parent) !== undefined;
    if (!joined) parent = api.propagation.extract(parent, headers, HEADERS_GETTER);
    const kind = joined ? api.SpanKind.INTERNAL : api.SpanKind.SERVER;
    this.#span = tracer?.startSpan('checkout.webhook.delivery', { kind }, parent);
    this.#context = this.#span === undefined ? parent : api.trace.setSpan(parent, this.#span);
  }

  /** Runs the delivery's work inside its span. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.#api.context.with(this.#context, work);
  }

  /** Records the answer; the span ends then, unless `pending` (a 503 at `responseTimeoutMs`, work going on): at {@link late}. */
  answered(result: DeliveryFacts, status: number, claim: ClaimAnswer | undefined, pending = false): void {
    ignoreFailure(() => this.#answered(result, status, claim, pending));
  }

  #answered(result: DeliveryFacts, status: number, claim: ClaimAnswer | undefined, pending: boolean): void {
    const attributes: Attributes = { [ATTR.webhookOutcome]: result.outcome };
    if (result.type !== undefined) attributes[ATTR.eventType] = result.type;
    this.#instruments?.deliveryDuration.record((performance.now() - this.#started) / 1000, attributes);
    const span = this.#span;
    if (span === undefined) return;
    span.setAttributes(attributes);
    span.setAttribute(ATTR.statusCode, status);
    if (result.eventId !== undefined) span.setAttribute(ATTR.eventId, result.eventId);
    if (result.confirmed !== undefined) span.setAttribute(ATTR.confirmed, result.confirmed);
    const answer = claim ?? CLAIM_OF_OUTCOME[result.outcome];
    if (answer !== undefined) span.setAttribute(ATTR.claim, answer);
    if (result.error !== undefined) span.setAttribute(ATTR.errorType, errorType(result.error));
    // the service side of a delivery: what the provider must redeliver is an error, a refusal is not
    if (status >= 500 && result.outcome !== 'draining') span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: result.outcome });
    if (!pending) span.end();
  }

  /** The work of a delivery answered at `responseTimeoutMs` ended with `result`. */
  late(result: DeliveryFacts): void {
    const span = this.#span;
    if (span === undefined) return;
    ignoreFailure(() => this.#late(span, result));
  }

  #late(span: Span, result: DeliveryFacts): void {
    span.setAttribute(ATTR.lateOutcome, result.outcome);
    if (result.confirmed !== undefined) span.setAttribute(ATTR.confirmed, result.confirmed);
    if (result.error !== undefined) span.setAttribute(ATTR.errorType, errorType(result.error));
    span.end();
  }
}
