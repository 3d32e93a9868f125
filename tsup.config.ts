import { defineConfig, type Options } from 'tsup';

/** The library entries: the package's exports, and the lazily imported telemetry implementation. */
const ENTRIES = {
  index: 'src/index.ts',
  webhooks: 'src/webhooks/index.ts',
  // the `node` export condition of ./webhooks: HMAC through node:crypto with pre-made KeyObjects
  'webhooks.node': 'src/webhooks/index.node.ts',
  redis: 'src/redis/index.ts',
  postgres: 'src/postgres/index.ts',
  tracker: 'src/tracker/index.ts',
  stores: 'src/stores/index.ts',
  testing: 'src/testing/index.ts',
  'testing/msw': 'src/testing/msw.ts',
};

/** The two flavours of `#otel-api` (package.json `imports`): not exports, no declarations; the telemetry imports one. */
const OTEL_API = {
  'otel-api.node': 'src/telemetry/otel-api.node.ts',
  'otel-api.web': 'src/telemetry/otel-api.web.ts',
};

/** What both library builds share. */
const LIBRARY: Options = {
  dts: { entry: ENTRIES },
  platform: 'neutral',
  // `#otel-api` stays a bare import, resolved by package.json `imports` per runtime (src/telemetry/api.ts)
  external: [/^node:/, /^#otel-api$/],
  removeNodeProtocol: false, // Deno and Workers resolve only the `node:` form
  target: 'es2023',
  sourcemap: true,
};

export default defineConfig([
  {
    ...LIBRARY,
    // One build for every ESM entry, so they share chunks: the node flavour of ./webhooks and the
    // main entry then share one error tree and one copy of every dependency.
    entry: {
      ...ENTRIES,
      ...OTEL_API,
      // not an export: imported at the first call while OpenTelemetry is on (src/telemetry/telemetry.ts)
      'telemetry-core': 'src/telemetry/telemetry-core.ts',
    },
    format: ['esm'],
    // zod is bundled (tree-shaken), not loaded from node_modules: every public zod entry (zod/mini,
    // zod/v4/core) re-exports all ~60 locale modules, which cost most of the package's cold start.
    // zod stays a dependency for the declarations; its global config (z.config, locales) lives on
    // globalThis, so a partner's own zod still configures ours. See README.md (Performance).
    // jose stays external: an app's bundler dedupes it with its own copy.
    noExternal: [/^zod(\/|$)/],
    define: { __CHECKOUT_SDK_CJS__: 'false' },
    splitting: true,
    treeshake: true,
  },
  {
    ...LIBRARY,
    // The CommonJS build loads through `require` alone, in every runner (Jest's CommonJS mode, whose
    // `require` cannot load ES modules and which has no `import()` without --experimental-vm-modules;
    // Node 22 before require(esm)): the ESM-only dependency (jose 6) and zod are bundled in,
    // every `import()` becomes a `require` (`supported` below), and each entry is one file (esbuild
    // splits ESM only; a split CJS build would `import()` its lazy chunks). Each entry holds its own
    // copy of the shared code: the errors' `instanceof` holds across copies (src/errors.ts).
    // The optional peers (msw, @opentelemetry/api, the store drivers) stay external, loaded with the
    // module's own `require` (__CHECKOUT_SDK_CJS__), so a runner's module registry (Jest's) serves them.
    entry: { ...ENTRIES, ...OTEL_API },
    format: ['cjs'],
    noExternal: [/^zod(\/|$)/, /^jose(\/|$)/],
    define: { __CHECKOUT_SDK_CJS__: 'true' },
    splitting: false,
    // esbuild's tree shaking only: tsup's rollup pass would bring `import()` back into the CommonJS
    treeshake: false,
    esbuildOptions(options) {
      options.supported = { ...options.supported, 'dynamic-import': false };
    },
    // `import.meta.url` from `__filename` (the ESM loading paths, unused in this build but compiled)
    shims: true,
  },
  {
    entry: { cli: 'src/cli/index.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node22',
    removeNodeProtocol: false,
    define: { __CHECKOUT_SDK_CJS__: 'false' },
    sourcemap: false, // a command, not a library: its map would be most of the tarball
    banner: { js: '#!/usr/bin/env node' },
  },
]);
