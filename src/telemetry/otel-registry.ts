import type { ContextManager, DiagLogger, MeterProvider, TextMapPropagator, TracerProvider } from '@opentelemetry/api';

/** What `@opentelemetry/api` 1.x keeps on `globalThis`, whichever copy registered it; `trace` is that copy's proxy. */
export interface OtelRegistry {
  readonly trace?: TracerProvider;
  readonly metrics?: MeterProvider;
  readonly context?: ContextManager;
  readonly propagation?: TextMapPropagator;
  readonly diag?: DiagLogger;
}

const KEY = Symbol.for('opentelemetry.js.api.1');

/** The registry as it is now (`undefined` until a copy of the API registers something): read at each use, as an app may register late. */
export function otelRegistry(): OtelRegistry | undefined {
  return (globalThis as Record<symbol, OtelRegistry | undefined>)[KEY];
}
