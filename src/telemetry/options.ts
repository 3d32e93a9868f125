/**
 * An OpenTelemetry `TracerProvider` (e.g. `NodeTracerProvider`), typed by shape so the SDK's declarations do not need the peer.
 * @inline
 */
export interface TracerProviderLike {
  /** The tracer named `name` (the SDK asks for `checkout-partner-sdk` at its version). */
  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): unknown;
}

/**
 * An OpenTelemetry `MeterProvider` (e.g. the OpenTelemetry SDK's `MeterProvider`), typed by shape.
 * @inline
 */
export interface MeterProviderLike {
  /** The meter named `name` (the SDK asks for `checkout-partner-sdk` at its version). */
  getMeter(name: string, version?: string, options?: { schemaUrl?: string }): unknown;
}

/**
 * The `@opentelemetry/api` module itself (`import * as api from '@opentelemetry/api'`), typed by shape.
 * @inline
 */
export interface OpenTelemetryApiLike {
  /** The API's `trace` (tracer providers and the active span). */
  readonly trace: object;
  /** The API's `metrics` (meter providers). */
  readonly metrics: object;
  /** The API's `context` (the active context). */
  readonly context: object;
  /** The API's `propagation` (the `traceparent` header). */
  readonly propagation: object;
}

/** Where the SDK's traces and metrics go. Both need the optional peer `@opentelemetry/api`; without it nothing is emitted. */
export interface TelemetryOptions {
  /**
   * The OpenTelemetry tracer provider to create spans with. A webhook handler (or status tracker)
   * without one uses its client's.
   * @default the global one (`trace.setGlobalTracerProvider`, as the OpenTelemetry Node SDK registers it); none registered: no spans
   */
  tracerProvider?: TracerProviderLike | undefined;
  /**
   * The OpenTelemetry meter provider to record metrics with. A webhook handler (or status tracker)
   * without one uses its client's.
   * @default the global one (`metrics.setGlobalMeterProvider`); none registered: no metrics
   */
  meterProvider?: MeterProviderLike | undefined;
  /**
   * The `@opentelemetry/api` module to use instead of the one the SDK looks for: pass your app's own where
   * a bundler hides it (docs/observability.md, Bundlers). A webhook handler (or status tracker) without one uses its client's.
   * @default the `@opentelemetry/api` the SDK finds at its first call (none found: no spans or metrics, said once on stderr when a provider is registered or given)
   */
  openTelemetryApi?: OpenTelemetryApiLike | undefined;
}

/** Where a `CheckoutClient` keeps its telemetry options for its handler and tracker; `Symbol.for`, so two SDK copies agree. */
export const TELEMETRY_OPTIONS = Symbol.for('checkout-partner-sdk.telemetry');

/** `client`'s telemetry options, when it is a `CheckoutClient` (of any copy of the SDK); else none. */
export function clientTelemetryOptions(client: unknown): TelemetryOptions {
  const options = (client as { [TELEMETRY_OPTIONS]?: unknown } | null | undefined)?.[TELEMETRY_OPTIONS];
  return options !== null && typeof options === 'object' ? options : {};
}

/** The providers a webhook handler or tracker uses: its own options first, then its client's. */
export function inheritedTelemetry(options: TelemetryOptions, client: unknown): TelemetryOptions {
  const fromClient = clientTelemetryOptions(client);
  return {
    tracerProvider: options.tracerProvider ?? fromClient.tracerProvider,
    meterProvider: options.meterProvider ?? fromClient.meterProvider,
    // only an absent one is inherited: a wrong one (null included) is refused by name
    // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing -- `??` would inherit on null too
    openTelemetryApi: options.openTelemetryApi === undefined ? fromClient.openTelemetryApi : options.openTelemetryApi,
  };
}
