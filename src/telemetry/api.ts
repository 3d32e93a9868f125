import type * as OtelApi from '@opentelemetry/api';
import { loadOtelApi } from '#otel-api';
import { otelRegistry } from './otel-registry.js';

/** What the SDK uses of `@opentelemetry/api`: the module has it all, and so has otel-api.webpack.ts's registry view. */
export interface OtelApiModule {
  readonly trace: Pick<typeof OtelApi.trace, 'getTracerProvider' | 'getSpan' | 'setSpan' | 'getActiveSpan'>;
  readonly metrics: Pick<typeof OtelApi.metrics, 'getMeterProvider'>;
  readonly context: Pick<typeof OtelApi.context, 'active' | 'with'>;
  readonly propagation: Pick<typeof OtelApi.propagation, 'inject' | 'extract'>;
  readonly diag: Pick<typeof OtelApi.diag, 'warn'>;
  readonly ProxyTracerProvider: new () => { getDelegate(): unknown };
  readonly createNoopMeter: () => unknown;
  readonly SpanKind: Pick<typeof OtelApi.SpanKind, 'INTERNAL' | 'SERVER' | 'CLIENT'>;
  readonly SpanStatusCode: Pick<typeof OtelApi.SpanStatusCode, 'ERROR'>;
}

/** `undefined`: not looked for yet; `null`: not found (then nothing is emitted unless an instance is given the API). */
let found: OtelApiModule | null | undefined;
let finding: Promise<OtelApiModule | null> | undefined;

/** `@opentelemetry/api`, an optional peer, looked for at the first call that could emit through `#otel-api` (per runtime). */
export function findOtelApi(): OtelApiModule | null | Promise<OtelApiModule | null> {
  if (found !== undefined) return found;
  if (finding !== undefined) return finding;
  const loaded = loadOtelApi();
  if (!(loaded instanceof Promise)) return (found = moduleOf(loaded));
  return (finding = loaded.then((module: unknown) => (found = moduleOf(module))));
}

/** The API itself from what a loader handed back (a namespace, or a CommonJS module wrapped in `default`). */
function moduleOf(loaded: unknown): OtelApiModule | null {
  if (isOtelApi(loaded)) return loaded;
  const inner = (loaded as { default?: unknown } | null | undefined)?.default;
  return isOtelApi(inner) ? inner : null;
}

/** What the SDK uses of the API: a module without it (another package, a stub) is not one. */
export function isOtelApi(value: unknown): value is OtelApiModule {
  const api = value as Partial<Record<keyof OtelApiModule, unknown>> | null | undefined;
  return (
    typeof api?.trace === 'object' &&
    typeof api.metrics === 'object' &&
    typeof api.context === 'object' &&
    typeof api.propagation === 'object' &&
    typeof api.ProxyTracerProvider === 'function' &&
    typeof api.createNoopMeter === 'function' &&
    typeof api.SpanKind === 'object' &&
    typeof api.SpanStatusCode === 'object'
  );
}

/** Whether a copy of the API the SDK could not load has a provider registered: a bundle hides the API from the SDK. */
export function otelRegisteredElsewhere(): boolean {
  const registry = otelRegistry();
  return registry?.trace !== undefined || registry?.metrics !== undefined;
}
