import type { Attributes, ObservableGauge, Span } from '@opentelemetry/api';
import type { StatusKind } from '../kinds.js';
import type { OtelApiModule } from './api.js';
import { CURRENT_CALL, ObservedCall, type ExchangeRef } from './client-call.js';
import type { Instruments } from './instruments.js';
import { ignoreFailure } from '../internal/ignore-failure.js';
import { errorType } from './error-type.js';
import { ObservedDelivery } from './webhook-delivery.js';
import { ATTR } from './names.js';
import type { TelemetryOptions } from './options.js';
import { instrumentsOf, tracerOf } from './providers.js';
import { requestMethod, urlTemplate } from './route.js';

export type RecordKind = StatusKind;

/** What a tracker read found, for its span. */
export interface ReadFacts {
  /** The record's status (`null`: it has none yet). */
  status?: string | null | undefined;
  /** Whether it differs from the last status handled. */
  changed?: boolean | undefined;
}

/** A status change handed to `onChange` (the fields of `StatusChange` the span shows; never the record). */
export interface ChangeFacts {
  kind: RecordKind;
  externalId: string;
  status: string | null;
  previousStatus?: string | null | undefined;
  source: 'poll' | 'webhook';
}

/** What the load control's observer hooks report (the union of their events' fields). */
export interface LoadEvent {
  method?: string;
  path?: string;
  waitedMs?: number;
  pauseMs?: number;
  requestsPerSecond?: number | undefined;
}

/** Watched records: a total (reported without attributes), or counts by kind. */
export type WatchedCounts = number | Partial<Record<RecordKind, number>>;

/** The HTTP server a client calls, as the semantic conventions name it. */
interface Endpoint {
  /** The API base without a trailing slash. */
  base: string;
  address: string;
  port: number;
}

/** What one client, handler or tracker emits; providers are looked up at each use, so a later-registered SDK is followed. */
export class TelemetryCore {
  readonly options: TelemetryOptions;
  readonly #api: OtelApiModule;
  readonly #endpoint: Endpoint | undefined;
  /** The last token exchange started, for the calls that wait for it to link to. */
  #lastExchange: ExchangeRef | undefined;

  constructor(api: OtelApiModule, options: TelemetryOptions, apiBase?: string) {
    this.#api = api;
    this.options = options;
    if (apiBase !== undefined) {
      const url = new URL(apiBase);
      const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
      // an IPv6 host without its brackets, as `server.address` wants it
      this.#endpoint = { base: apiBase.replace(/\/+$/, ''), address: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
    }
  }

  /** A client call (`method` lower or upper case, `path` below the API base), or `undefined` when nothing is emitted. */
  call(method: string, path: string): ObservedCall | undefined {
    return this.#observe(method, path, false);
  }

  /** A token exchange; calls that wait for it link to it. */
  exchange(): ObservedCall | undefined {
    const observed = this.#observe('post', '/auth/token', true);
    this.#lastExchange = observed?.ref();
    return observed;
  }

  /** A webhook delivery, joining the active trace (the framework's HTTP instrumentation) or the one its headers carry. */
  delivery(headers: Headers): ObservedDelivery | undefined {
    const api = this.#api;
    const tracer = tracerOf(api, this.options.tracerProvider);
    const instruments = instrumentsOf(api, this.options.meterProvider);
    if (tracer === undefined && instruments === undefined) return undefined;
    try {
      return new ObservedDelivery(api, tracer, instruments, headers);
    } catch {
      return undefined; // a provider that throws costs the delivery its span, nothing else
    }
  }

  // ---- load control (src/client/load/) -------------------------------------------------------

  // Called (through src/telemetry/load-hooks.ts) inside the call they concern: its span is the active one.

  /** One event of the load control's observer (`LoadHooks`), by its name. */
  load(name: string, event: LoadEvent): void {
    if (name === 'queued') this.queued(event.waitedMs ?? 0, event.method ?? 'GET', event.path ?? '/');
    else if (name === 'retryDenied') this.retryDenied();
    else if (name === 'budgetExhausted') this.budgetExhausted();
    else if (name === 'budgetRestored') this.budgetRestored();
    else if (name === 'paused') this.paused(event.pauseMs ?? 0);
    else if (name === 'rateChanged') this.rateChanged(event.requestsPerSecond);
  }

  /** A request waited `ms` milliseconds for its turn. */
  queued(ms: number, method: string, path: string): void {
    ignoreFailure(() => this.#instruments()?.queueWait.record(ms / 1000, this.#routeAttributes(method, path)));
  }

  /** The retry budget refused a retry: the call fails on the error it had. Counted by the call's route, and an event on its span. */
  retryDenied(): void {
    ignoreFailure(() => {
      this.#event('checkout.retry_budget.denied');
      const call = this.#api.context.active().getValue(CURRENT_CALL) as ObservedCall | undefined;
      this.#instruments()?.retryDenied.add(1, call?.metricAttributes ?? this.#serverAttributes());
    });
  }

  /** The retry budget ran dry (once per dry spell). */
  budgetExhausted(): void {
    ignoreFailure(() => {
      this.#event('checkout.retry_budget.exhausted');
      this.#instruments()?.retryBudgetExhausted.add(1, this.#serverAttributes());
    });
  }

  /** The retry budget holds enough for a retry again. */
  budgetRestored(): void {
    ignoreFailure(() => this.#event('checkout.retry_budget.restored'));
  }

  /** A 429 with `Retry-After` paused every request of the client for `pauseMs`. */
  paused(pauseMs: number): void {
    ignoreFailure(() => {
      this.#event('checkout.client.paused', { [ATTR.pauseMs]: pauseMs });
      this.#instruments()?.pauses.add(1, this.#serverAttributes());
    });
  }

  /** The adaptive rate changed (`undefined`: lifted). */
  rateChanged(requestsPerSecond: number | undefined): void {
    ignoreFailure(() =>
      this.#event('checkout.client.rate_changed', requestsPerSecond === undefined ? {} : { [ATTR.rate]: requestsPerSecond }),
    );
  }

  #event(name: string, attributes?: Attributes): void {
    this.#api.trace.getActiveSpan()?.addEvent(name, attributes);
  }

  #instruments(): Instruments | undefined {
    return instrumentsOf(this.#api, this.options.meterProvider);
  }

  #serverAttributes(): Attributes {
    return this.#endpoint === undefined ? {} : { [ATTR.serverAddress]: this.#endpoint.address, [ATTR.serverPort]: this.#endpoint.port };
  }

  // ---- status tracker (src/tracker/) ----------------------------------------------------------

  /** Runs one read of a watched record in a `checkout.tracker.read` span; `work` may `note` the status and whether it changed. */
  trackerRead<T>(kind: RecordKind, externalId: string, work: (note: (facts: ReadFacts) => void) => Promise<T>): Promise<T> {
    const attributes: Attributes = { [ATTR.recordKind]: kind, [ATTR.externalId]: externalId };
    return this.#inSpan('checkout.tracker.read', attributes, (span) =>
      work((facts) => {
        if (facts.status !== undefined) span?.setAttribute(ATTR.status, facts.status ?? 'null');
        if (facts.changed !== undefined) span?.setAttribute(ATTR.changed, facts.changed);
      }),
    );
  }

  /** Runs `onChange` for one status change inside a `checkout.tracker.change` span. */
  statusChange<T>(change: ChangeFacts, work: () => Promise<T>): Promise<T> {
    const attributes: Attributes = {
      [ATTR.recordKind]: change.kind,
      [ATTR.externalId]: change.externalId,
      [ATTR.status]: change.status ?? 'null',
      [ATTR.source]: change.source,
    };
    if (change.previousStatus !== undefined) attributes[ATTR.previousStatus] = change.previousStatus ?? 'null';
    return this.#inSpan('checkout.tracker.change', attributes, () => work());
  }

  /** A status change was seen `ms` milliseconds after the read that saw it was due. */
  trackerLag(ms: number, kind: RecordKind, source: 'poll' | 'webhook'): void {
    const api = this.#api;
    ignoreFailure(() =>
      instrumentsOf(api, this.options.meterProvider)?.trackerLag.record(Math.max(0, ms) / 1000, {
        [ATTR.recordKind]: kind,
        [ATTR.source]: source,
      }),
    );
  }

  /** Reports `count()` at each metrics collection, with the meter provider current now; returns the function that stops it. */
  watchedRecords(count: () => WatchedCounts | Promise<WatchedCounts>): () => void {
    const gauge = instrumentsOf(this.#api, this.options.meterProvider)?.watched;
    if (gauge === undefined) return () => undefined;
    const callback = async (result: { observe(value: number, attributes?: Attributes): void }) => {
      try {
        const counts = await count();
        if (typeof counts === 'number') result.observe(counts);
        else for (const [kind, value] of Object.entries(counts)) result.observe(value, { [ATTR.recordKind]: kind });
      } catch {
        // a store that cannot count now reports nothing this time
      }
    };
    gauge.addCallback(callback);
    return () => gauge.removeCallback(callback);
  }

  /** Reports the overdue records and the oldest's lateness at each collection, from one store call. */
  overdueRecords(query: () => Promise<{ count: number; oldestMs: number }>): () => void {
    const instruments = instrumentsOf(this.#api, this.options.meterProvider);
    if (instruments === undefined) return () => undefined;
    const { meter, overdue, oldestOverdue } = instruments;
    const callback = async (result: { observe(instrument: ObservableGauge, value: number): void }) => {
      try {
        const { count, oldestMs } = await query();
        result.observe(overdue, count);
        result.observe(oldestOverdue, Math.max(0, oldestMs) / 1000);
      } catch {
        // a store that cannot answer now reports nothing this time
      }
    };
    meter.addBatchObservableCallback(callback, [overdue, oldestOverdue]);
    return () => meter.removeBatchObservableCallback(callback, [overdue, oldestOverdue]);
  }

  /** One tracker failure: `failure` is its log entry's event (`tracker.read` failed, `tracker.change-failed`, ...). */
  trackerFailure(failure: string, errorName: string | undefined): void {
    const api = this.#api;
    ignoreFailure(() =>
      instrumentsOf(api, this.options.meterProvider)?.trackerFailures.add(1, {
        [ATTR.trackerFailure]: failure,
        ...(errorName === undefined ? {} : { [ATTR.errorType]: errorName }),
      }),
    );
  }

  /** A callback's work was given up (`onEvent` or `onChange`; `max-handling`, `drain` or `lease-lost`). */
  handlingAbandoned(callback: string, reason: string): void {
    const api = this.#api;
    ignoreFailure(() =>
      instrumentsOf(api, this.options.meterProvider)?.handlingAbandoned.add(1, {
        [ATTR.handlingCallback]: callback,
        [ATTR.handlingReason]: reason,
      }),
    );
  }

  foundFirstByRead(kind: RecordKind): void {
    const api = this.#api;
    ignoreFailure(() => instrumentsOf(api, this.options.meterProvider)?.foundFirstByRead.add(1, { [ATTR.recordKind]: kind }));
  }

  // --------------------------------------------------------------------------------------------

  #inSpan<T>(name: string, attributes: Attributes, work: (span: Span | undefined) => Promise<T>): Promise<T> {
    const api = this.#api;
    const tracer = tracerOf(api, this.options.tracerProvider);
    if (tracer === undefined) return work(undefined);
    return tracer.startActiveSpan(name, { kind: api.SpanKind.INTERNAL, attributes }, async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setAttribute(ATTR.errorType, errorType(error));
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorType(error) });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  #observe(method: string, path: string, exchange: boolean): ObservedCall | undefined {
    try {
      return this.#start(this.#api, method, path, exchange);
    } catch {
      return undefined; // a provider that throws costs the call its span, nothing else
    }
  }

  #start(api: OtelApiModule, method: string, path: string, exchange: boolean): ObservedCall | undefined {
    const tracer = tracerOf(api, this.options.tracerProvider);
    const instruments = instrumentsOf(api, this.options.meterProvider);
    if (tracer === undefined && instruments === undefined) return undefined;
    const attributes = this.#routeAttributes(method, path);
    const name = `${attributes[ATTR.method] === '_OTHER' ? 'HTTP' : String(attributes[ATTR.method])} ${String(attributes[ATTR.urlTemplate])}`;
    // url.full without the query: a request()'s query may carry anything
    const urlFull = `${this.#endpoint?.base ?? ''}${path.replace(/[?#].*$/s, '')}`;
    return new ObservedCall(api, tracer, instruments, name, attributes, urlFull, exchange, () => this.#lastExchange);
  }

  #routeAttributes(method: string, path: string): Attributes {
    const attributes: Attributes = { [ATTR.method]: requestMethod(method), [ATTR.urlTemplate]: urlTemplate(path) };
    if (this.#endpoint !== undefined) {
      attributes[ATTR.serverAddress] = this.#endpoint.address;
      attributes[ATTR.serverPort] = this.#endpoint.port;
    }
    return attributes;
  }
}
