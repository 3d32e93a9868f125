// `#otel-api` in webpack's Node bundles: no specifier of the peer (webpack warns where it is not installed,
// and `webpackIgnore` would drop the app's copy). What an app registers is read from `globalThis`, as the API does.

import type { Context, ContextManager, Meter, MeterProvider, Span, TextMapGetter, TextMapSetter, TracerProvider } from '@opentelemetry/api';
import type { OtelApiModule } from './api.js';
import { otelRegistry } from './otel-registry.js';

/** The API's key for the active span in a context (`createContextKey` is `Symbol.for`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** A context without a context manager registered: immutable, each change a new one (as the API's `ROOT_CONTEXT`). */
class RootContext implements Context {
  readonly #values: ReadonlyMap<symbol, unknown>;
  constructor(values: ReadonlyMap<symbol, unknown> = new Map()) {
    this.#values = values;
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): Context {
    return new RootContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): Context {
    const values = new Map(this.#values);
    values.delete(key);
    return new RootContext(values);
  }
}

const ROOT_CONTEXT = new RootContext();

/** Nothing registered: the API's no-op context manager (the root context; `with` just calls). */
const NO_CONTEXT_MANAGER: Pick<ContextManager, 'active' | 'with'> = {
  active: () => ROOT_CONTEXT,
  with: (_context, fn, thisArg, ...args) => fn.call(thisArg, ...args),
};

/** "Nothing registered": compared by identity, like the API's no-op provider and meter. */
const NO_METER = Object.freeze({}) as Meter;
const NO_METER_PROVIDER: MeterProvider = Object.freeze({ getMeter: () => NO_METER });
const NO_TRACER_PROVIDER: TracerProvider = Object.freeze({
  getTracer(): never {
    throw new TypeError('checkout-partner-sdk: no tracer provider is registered');
  },
});
const NO_TRACER_PROXY = Object.freeze({ ...NO_TRACER_PROVIDER, getDelegate: () => NO_TRACER_PROVIDER });

/** The API's default carrier accessors (a plain object's properties). */
const SETTER: TextMapSetter = {
  set: (carrier, key, value) => {
    if (carrier != null) (carrier as Record<string, string>)[key] = value;
  },
};
const GETTER: TextMapGetter = {
  get: (carrier, key) => (carrier == null ? undefined : (carrier as Record<string, string | string[] | undefined>)[key]),
  keys: (carrier) => (carrier == null ? [] : Object.keys(carrier as object)),
};

const activeContext = (): Context => (otelRegistry()?.context ?? NO_CONTEXT_MANAGER).active();
const getSpan = (context: Context): Span | undefined => {
  const span = context.getValue(SPAN_KEY);
  return span ? (span as Span) : undefined;
};

/** `@opentelemetry/api` as the SDK uses it, from the registry: each call reads what is registered now. */
const REGISTRY_API: OtelApiModule = {
  trace: {
    getTracerProvider: () => otelRegistry()?.trace ?? NO_TRACER_PROXY,
    getSpan,
    setSpan: (context, span) => context.setValue(SPAN_KEY, span),
    getActiveSpan: () => getSpan(activeContext()),
  },
  metrics: { getMeterProvider: () => otelRegistry()?.metrics ?? NO_METER_PROVIDER },
  context: {
    active: activeContext,
    with: (context, fn, thisArg, ...args) => (otelRegistry()?.context ?? NO_CONTEXT_MANAGER).with(context, fn, thisArg, ...args),
  },
  propagation: {
    inject: (context, carrier, setter = SETTER) => otelRegistry()?.propagation?.inject(context, carrier, setter),
    extract: (context, carrier, getter = GETTER) => otelRegistry()?.propagation?.extract(context, carrier, getter) ?? context,
  },
  diag: { warn: (message, ...args) => otelRegistry()?.diag?.warn(message, ...args) },
  ProxyTracerProvider: class {
    getDelegate(): unknown {
      return NO_TRACER_PROVIDER;
    }
  },
  createNoopMeter: () => NO_METER,
  // the values the OpenTelemetry specification fixes (the enums are the peer's: no value of it here)
  // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
  SpanKind: { INTERNAL: 0, SERVER: 1, CLIENT: 2 },
  // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
  SpanStatusCode: { ERROR: 2 },
};

/** The registry's view of the API: always there, emitting once an app registers a provider (or gives one). */
export function loadOtelApi(): unknown {
  return REGISTRY_API;
}
