import type { Attributes, Context, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { ignoreFailure } from '../internal/ignore-failure.js';
import type { OtelApiModule } from './api.js';
import { errorType, refusedUnsent } from './error-type.js';
import type { Instruments } from './instruments.js';
import { ATTR } from './names.js';

/** What a call did, as the client's transport counts it (its `CallTrace` fits). */
export interface CallTrace {
  attempts: number;
  /** The last successful response, if any. */
  response: Response | undefined;
}

/** The context key under which a call's context holds its {@link ObservedCall} (`Symbol.for`, as `createContextKey` makes keys). */
export const CURRENT_CALL = Symbol.for('checkout-partner-sdk call');

/** The token exchange a call may wait for: its span, and the span it was started under. */
export interface ExchangeRef {
  spanContext: SpanContext;
  parentSpanId: string | undefined;
}

/** A client call or token exchange under observation: a CLIENT span named by its route template, metrics at its end. */
export class ObservedCall {
  readonly #api: OtelApiModule;
  readonly #span: Span | undefined;
  readonly #context: Context;
  readonly #instruments: Instruments | undefined;
  /** The metric attributes: method, template, server (low cardinality, no id). */
  readonly metricAttributes: Attributes;
  readonly #exchange: boolean;
  readonly #parentSpanId: string | undefined;
  readonly #lastExchange: () => ExchangeRef | undefined;
  /** The last exchange when the call started: another one when its request is sent means it waited for that one. */
  #exchangeBefore: ExchangeRef | undefined;
  readonly #started = performance.now();

  constructor(
    api: OtelApiModule,
    tracer: Tracer | undefined,
    instruments: Instruments | undefined,
    name: string,
    attributes: Attributes,
    urlFull: string,
    exchange: boolean,
    lastExchange: () => ExchangeRef | undefined,
  ) {
    this.#api = api;
    this.#lastExchange = lastExchange;
    this.#exchangeBefore = lastExchange();
    this.#instruments = instruments;
    this.metricAttributes = attributes;
    this.#exchange = exchange;
    const active = api.context.active();
    this.#span = tracer?.startSpan(name, { kind: api.SpanKind.CLIENT, attributes: { ...attributes, [ATTR.urlFull]: urlFull } }, active);
    this.#context = (this.#span === undefined ? active : api.trace.setSpan(active, this.#span)).setValue(CURRENT_CALL, this);
    this.#parentSpanId = api.trace.getSpan(active)?.spanContext().spanId;
  }

  /** Where an exchange started inside this call links back to. */
  ref(): ExchangeRef | undefined {
    return this.#span === undefined ? undefined : { spanContext: this.#span.spanContext(), parentSpanId: this.#parentSpanId };
  }

  /** Runs the call inside its span (its token exchange and fetch's own spans become children) and ends it with the outcome. */
  run<T>(work: () => Promise<T>, trace: CallTrace): Promise<T> {
    return this.#api.context.with(this.#context, work).then(
      (value) => {
        ignoreFailure(() => this.end(trace, undefined));
        return value;
      },
      (error: unknown) => {
        ignoreFailure(() => this.end(trace, error));
        throw error;
      },
    );
  }

  /**
   * Called as the request is sent: injects the trace context, and marks a call that waited for a token
   * exchange started since it began or since its last request (a re-send after a 401), linked unless its child.
   */
  inject(headers: Record<string, string>): void {
    const span = this.#span;
    if (span === undefined) return;
    ignoreFailure(() => {
      this.#api.propagation.inject(this.#context, headers);
      const exchange = this.#lastExchange();
      if (this.#exchange || exchange === this.#exchangeBefore) return;
      this.#exchangeBefore = exchange;
      span.setAttribute(ATTR.tokenWaited, true);
      if (exchange !== undefined && exchange.parentSpanId !== span.spanContext().spanId) span.addLink({ context: exchange.spanContext });
    });
  }

  end(trace: CallTrace, error: unknown): void {
    // by shape, not class: this module may be another copy than the client's (its CommonJS build)
    const failure = error as { status?: unknown; requestId?: unknown } | null | undefined;
    // a call refused unsent got no response: no status code (set only for a response), its own error.type
    const status = refusedUnsent(error)
      ? undefined
      : (trace.response?.status ?? (typeof failure?.status === 'number' ? failure.status : undefined));
    const requestId =
      trace.response?.headers.get('x-request-id') ?? (typeof failure?.requestId === 'string' ? failure.requestId : undefined);
    const type = error === undefined ? undefined : errorType(error);
    const span = this.#span;
    if (span !== undefined) {
      if (status !== undefined) span.setAttribute(ATTR.statusCode, status);
      span.setAttribute(ATTR.attempts, trace.attempts);
      if (requestId !== undefined) span.setAttribute(ATTR.requestId, requestId);
      if (type !== undefined) {
        span.setAttribute(ATTR.errorType, type);
        // the message may quote the service's answer: the status says the class, never the text
        span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: type });
      }
      span.end();
    }
    const instruments = this.#instruments;
    if (instruments === undefined) return;
    const attributes: Attributes = { ...this.metricAttributes };
    if (status !== undefined) attributes[ATTR.statusCode] = status;
    if (type !== undefined) attributes[ATTR.errorType] = type;
    instruments.callDuration.record((performance.now() - this.#started) / 1000, attributes);
    if (trace.attempts > 1) instruments.retries.add(trace.attempts - 1, this.metricAttributes);
    if (this.#exchange) instruments.tokenExchanges.add(1, type === undefined ? {} : { [ATTR.errorType]: type });
  }
}
