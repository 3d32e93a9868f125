import type { TelemetryCore } from './telemetry-core.js';
import { findOtelApi, isOtelApi, otelRegisteredElsewhere, type OtelApiModule } from './api.js';
import type { TelemetryOptions } from './options.js';

/** What may emit; `undefined` while nothing can (the no-op path: nothing else is loaded or made). */
export type TelemetryUse = TelemetryCore | Promise<TelemetryCore | undefined> | undefined;

/**
 * The telemetry of one client, webhook handler or status tracker. This part is all the SDK loads
 * until something can emit: it asks whether `@opentelemetry/api` is installed and a provider
 * registered (or given), and only then loads the implementation ({@link TelemetryCore}), once, on
 * first use. So an app without OpenTelemetry neither loads nor bundles more than this file.
 */
export class Telemetry {
  readonly options: TelemetryOptions;
  readonly #apiBase: string | undefined;
  /** The API given (`openTelemetryApi`), else the one found at the first call. */
  readonly #api: OtelApiModule | undefined;
  #core: TelemetryCore | undefined;

  /** Checks the providers and the API module: a `TypeError` naming one that is not one. */
  constructor({ tracerProvider, meterProvider, openTelemetryApi }: TelemetryOptions, apiBase?: string) {
    check('tracerProvider', tracerProvider, 'getTracer');
    check('meterProvider', meterProvider, 'getMeter');
    if (openTelemetryApi !== undefined && !isOtelApi(openTelemetryApi)) {
      throw new TypeError("openTelemetryApi must be the @opentelemetry/api module (import * as api from '@opentelemetry/api')");
    }
    this.options = { tracerProvider, meterProvider, openTelemetryApi };
    this.#api = openTelemetryApi;
    this.#apiBase = apiBase;
  }

  /** The implementation when something may emit (a promise the first time it loads); `undefined` when nothing can. */
  use(): TelemetryUse {
    const api = this.#api ?? findOtelApi();
    return api instanceof Promise ? api.then((found) => this.#useWith(found)) : this.#useWith(api);
  }

  #useWith(api: OtelApiModule | null): TelemetryCore | Promise<TelemetryCore | undefined> | undefined {
    if (api === null) {
      warnApiMissing(this.options);
      return undefined;
    }
    if (!emits(api, this.options)) return undefined;
    return this.#core ?? loadCore(api).then((module) => module && (this.#core ??= new module.TelemetryCore(api, this.options, this.#apiBase)));
  }
}

let warnedApiMissing = false;

/**
 * Says once per process, on stderr, that no spans or metrics will come, when somebody expects them
 * (a provider given, or one registered through a copy of the API the SDK cannot reach: a bundle).
 * An app without OpenTelemetry hears nothing.
 */
function warnApiMissing({ tracerProvider, meterProvider }: TelemetryOptions): void {
  if (warnedApiMissing || (tracerProvider === undefined && meterProvider === undefined && !otelRegisteredElsewhere())) return;
  warnedApiMissing = true;
  console.warn(
    'checkout-partner-sdk: OpenTelemetry is in use but the SDK cannot load @opentelemetry/api (a bundle that holds it where the SDK cannot reach it, ' +
      "or it is not installed): no spans or metrics from the SDK. Pass the module: new CheckoutClient({ ..., openTelemetryApi: api }) with import * as api from '@opentelemetry/api' " +
      '(docs/observability.md, Bundlers).',
  );
}

function check(name: string, provider: unknown, method: string): void {
  if (provider !== undefined && typeof (provider as Record<string, unknown> | null)?.[method] !== 'function') {
    throw new TypeError(`${name} must be an OpenTelemetry provider (with ${method})`);
  }
}

/** Each copy of the API's no-op tracer provider: what its global proxy delegates to while nothing is registered. */
const noopTracers = new WeakMap<OtelApiModule, unknown>();

/** Whether a tracer or meter provider other than the API's no-op ones is given or registered. */
function emits(api: OtelApiModule, { tracerProvider, meterProvider }: TelemetryOptions): boolean {
  const tracers = (tracerProvider ?? api.trace.getTracerProvider()) as { getDelegate?: () => unknown };
  if (!noopTracers.has(api)) noopTracers.set(api, new api.ProxyTracerProvider().getDelegate());
  return (
    (tracers.getDelegate?.() ?? tracers) !== noopTracers.get(api) ||
    (meterProvider ?? api.metrics.getMeterProvider()).getMeter('checkout-partner-sdk') !== api.createNoopMeter()
  );
}

let loading: Promise<typeof import('./telemetry-core.js') | undefined> | undefined;

/**
 * The implementation module, imported at its first use, so a process without OpenTelemetry never
 * loads it. The specifier is a literal: tsup keeps the module its own file (`dist/telemetry-core.js`,
 * a split entry), an app bundler that splits code makes it a lazy chunk and one that does not inlines
 * it (spans then still come), and runtimes that check imports statically (workerd) accept it.
 */
function loadCore(api: OtelApiModule): Promise<typeof import('./telemetry-core.js') | undefined> {
  return (loading ??= import('./telemetry-core.js').catch((error: unknown) => {
    // a provider is registered, so somebody expects spans: say once, through OpenTelemetry's own diagnostics, why none come
    api.diag.warn(`checkout-partner-sdk: no spans or metrics: its telemetry module could not be loaded (${error instanceof Error ? error.name : 'error'})`);
    return undefined;
  }));
}
