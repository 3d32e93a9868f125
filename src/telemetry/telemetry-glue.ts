/** What {@link Telemetry} needs once `@opentelemetry/api` is found (or missing): whether anything emits, and the implementation. */
import type { OtelApiModule } from './api.js';
import type { TelemetryOptions } from './options.js';

/** Says on stderr that no spans or metrics will come (telemetry.ts decides when). */
export function warnApiMissing(): void {
  console.warn(
    'checkout-partner-sdk: OpenTelemetry is in use but the SDK cannot load @opentelemetry/api (a bundle that holds it where the SDK cannot reach it, ' +
      "or it is not installed): no spans or metrics from the SDK. Pass the module: new CheckoutClient({ ..., openTelemetryApi: api }) with import * as api from '@opentelemetry/api' " +
      '(docs/observability.md, Bundlers).',
  );
}

/** Each copy of the API's no-op tracer provider: what its global proxy delegates to while nothing is registered. */
const noopTracers = new WeakMap<OtelApiModule, unknown>();

/** Whether a tracer or meter provider other than the API's no-op ones is given or registered. */
export function emits(api: OtelApiModule, { tracerProvider, meterProvider }: TelemetryOptions): boolean {
  const tracers = (tracerProvider ?? api.trace.getTracerProvider()) as { getDelegate?: () => unknown };
  if (!noopTracers.has(api)) noopTracers.set(api, new api.ProxyTracerProvider().getDelegate());
  return (
    (tracers.getDelegate?.() ?? tracers) !== noopTracers.get(api) ||
    (meterProvider ?? api.metrics.getMeterProvider()).getMeter('checkout-partner-sdk') !== api.createNoopMeter()
  );
}

let loading: Promise<typeof import('./telemetry-core.js') | undefined> | undefined;

/** The implementation, imported at first use by a literal specifier (bundlers split or inline it; workerd accepts it). */
export function loadCore(api: OtelApiModule): Promise<typeof import('./telemetry-core.js') | undefined> {
  return (loading ??= import('./telemetry-core.js').catch((error: unknown) => {
    // a provider is registered, so somebody expects spans: say once, through OpenTelemetry's own diagnostics, why none come
    api.diag.warn(
      `checkout-partner-sdk: no spans or metrics: its telemetry module could not be loaded (${error instanceof Error ? error.name : 'error'})`,
    );
    return undefined;
  }));
}
