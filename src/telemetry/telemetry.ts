import type { TelemetryCore } from './telemetry-core.js';
import { findOtelApi, isOtelApi, otelRegisteredElsewhere, type OtelApiModule } from './api.js';
import type { TelemetryOptions } from './options.js';
import type * as Glue from './telemetry-glue.js';

/** What may emit; `undefined` while nothing can (the no-op path: nothing else is loaded or made). */
export type TelemetryUse = TelemetryCore | Promise<TelemetryCore | undefined> | undefined;

/** One client's, handler's or tracker's telemetry: the implementation loads once `@opentelemetry/api` and a provider are there. */
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
    if (glue === undefined) return loadGlue(api).then((loaded) => loaded && this.#useWith(api));
    if (!glue.emits(api, this.options)) return undefined;
    return (
      this.#core ??
      glue.loadCore(api).then((module) => module && (this.#core ??= new module.TelemetryCore(api, this.options, this.#apiBase)))
    );
  }
}

let warnedApiMissing = false;

/** Says once per process that no spans or metrics will come, when a provider is given or registered out of reach. */
function warnApiMissing({ tracerProvider, meterProvider }: TelemetryOptions): void {
  if (warnedApiMissing || (tracerProvider === undefined && meterProvider === undefined && !otelRegisteredElsewhere())) return;
  warnedApiMissing = true;
  void import('./telemetry-glue.js').then(
    (module) => module.warnApiMissing(),
    () => undefined,
  );
}

function check(name: string, provider: unknown, method: string): void {
  if (provider !== undefined && typeof (provider as Record<string, unknown> | null)?.[method] !== 'function') {
    throw new TypeError(`${name} must be an OpenTelemetry provider (with ${method})`);
  }
}

let glue: typeof Glue | undefined;
let loadingGlue: Promise<typeof Glue | undefined> | undefined;

/** telemetry-glue.ts, imported once the API is found; a failure is said through OpenTelemetry's diagnostics. */
function loadGlue(api: OtelApiModule): Promise<typeof Glue | undefined> {
  return (loadingGlue ??= import('./telemetry-glue.js').then(
    (module) => (glue = module),
    (error: unknown) => {
      api.diag.warn(
        `checkout-partner-sdk: no spans or metrics: its telemetry module could not be loaded (${error instanceof Error ? error.name : 'error'})`,
      );
      return undefined;
    },
  ));
}
