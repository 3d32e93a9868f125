import type { Meter, MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';
import { version } from '../../package.json';
import type { OtelApiModule } from './api.js';
import { Instruments } from './instruments.js';
import { SCOPE } from './names.js';
import type { MeterProviderLike, TracerProviderLike } from './options.js';

// The tracer and the instruments are made once per provider.

const tracers = new WeakMap<object, Tracer>();
const instruments = new WeakMap<object, Instruments | null>();
/** Each API's no-op tracer provider (a copy given, the one found): what its proxy delegates to while nothing is registered. */
const noopTracerProviders = new WeakMap<OtelApiModule, unknown>();

/** The tracer of `explicit`, else of the global provider; `undefined` when that is the API's no-op one. */
export function tracerOf(api: OtelApiModule, explicit: TracerProviderLike | undefined): Tracer | undefined {
  const provider = (explicit ?? api.trace.getTracerProvider()) as TracerProvider & { getDelegate?: () => TracerProvider };
  // the global provider is a proxy whose delegate is the registered one (or the no-op one)
  const delegate = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider;
  let noop = noopTracerProviders.get(api);
  if (noop === undefined) noopTracerProviders.set(api, (noop = new api.ProxyTracerProvider().getDelegate()));
  if (delegate === noop) return undefined;
  let tracer = tracers.get(delegate);
  if (tracer === undefined) {
    tracer = delegate.getTracer(SCOPE, version);
    tracers.set(delegate, tracer);
  }
  return tracer;
}

/** The instruments of `explicit`, else of the global meter provider; `undefined` when it is the API's no-op one. */
export function instrumentsOf(api: OtelApiModule, explicit: MeterProviderLike | undefined): Instruments | undefined {
  const provider = (explicit ?? api.metrics.getMeterProvider()) as MeterProvider;
  let found = instruments.get(provider);
  if (found === undefined) {
    const meter: Meter = provider.getMeter(SCOPE, version);
    found = meter === api.createNoopMeter() ? null : new Instruments(meter);
    instruments.set(provider, found);
  }
  return found ?? undefined;
}
