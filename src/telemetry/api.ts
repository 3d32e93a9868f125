import type * as OtelApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as the SDK uses it. */
export type OtelApiModule = typeof OtelApi;

/** `undefined`: not tried yet; `null`: absent or not loadable here (then nothing is ever emitted). */
let loaded: OtelApiModule | null | undefined;

/**
 * `@opentelemetry/api` (an optional peer), loaded on the first call that could emit, never at import:
 * a process without it (or that never calls) pays nothing. Loaded through Node's `require` (as the
 * testing kit loads msw) rather than `import()`: it is synchronous, so the first call is traced like
 * every other, and a bundler does not see it, so an app built without the package still builds.
 * Every copy of the API shares the providers registered through any copy (they live on `globalThis`).
 * Runtimes without `process.getBuiltinModule` (Cloudflare Workers) emit nothing.
 */
export function otelApi(): OtelApiModule | null {
  if (loaded !== undefined) return loaded;
  try {
    // 'module', not 'node:module': the runtime-neutral entries hold no `node:` specifier (nor Node types)
    const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => { createRequire?: (url: string) => (id: string) => unknown } } }).process;
    loaded = (node?.getBuiltinModule?.('module')?.createRequire?.(import.meta.url)('@opentelemetry/api') as OtelApiModule | undefined) ?? null;
  } catch {
    loaded = null; // not installed (or not loadable here): the SDK works as without telemetry
  }
  return loaded;
}
