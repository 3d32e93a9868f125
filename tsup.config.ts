import { transform } from 'esbuild';
import { defineConfig, type Options } from 'tsup';

/** The library entries: the package's exports. */
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

/** The flavours of `#otel-api` (package.json `imports`): not exports, no declarations; the telemetry imports one. */
const OTEL_API = {
  'otel-api.node': 'src/telemetry/otel-api.node.ts',
  // webpack's (its `webpack` condition, for Node): the API's global registry, no specifier of the peer
  'otel-api.webpack': 'src/telemetry/otel-api.webpack.ts',
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
  // No source maps: the output is unminified and readable as it stands, and a map without the
  // sources (src/ is not shipped) points a debugger at files the partner does not have.
  sourcemap: false,
  // dist/metafile-{esm,cjs}.json: which module went into which file, read by scripts/check-dist.mjs
  // (not packed: `files` in package.json leaves them out)
  metafile: true,
};

/**
 * The CommonJS build with shared chunks. esbuild splits ES modules only, and tsup's own CommonJS
 * splitting rewrites chunks with sucrase, which breaks on jose 6's code (`super(…), this.name = …`).
 * So esbuild builds this format as split ES modules (the `.cjs` names kept), and each output file is
 * then turned into CommonJS by esbuild itself, one file at a time: `import` becomes `require`, and
 * every `import()` a `Promise` of a `require` (no dynamic import is supported), so the entries
 * share one copy of each module and load through `require` alone.
 */
const CJS_CHUNKS: NonNullable<Options['plugins']>[number] = {
  name: 'cjs-chunks',
  esbuildOptions(options) {
    options.format = 'esm';
    options.splitting = true;
  },
  async renderChunk(code, info) {
    if (!info.path.endsWith('.cjs')) return undefined;
    const result = await transform(code, {
      format: 'cjs',
      platform: 'neutral',
      target: 'es2023',
      supported: { 'dynamic-import': false },
      // the module's own `require`, called with a literal (webpack then reads it as a dependency);
      // named otherwise in the sources, as esbuild's ES module output would make it a shim whose
      // free `require` webpack warns about in every CommonJS app
      define: { __CHECKOUT_SDK_REQUIRE__: 'require' },
      sourcefile: info.path,
    });
    return { code: result.code };
  },
};

export default defineConfig([
  {
    ...LIBRARY,
    entry: {
      ...ENTRIES,
      ...OTEL_API,
      // not an export: imported at the first call while OpenTelemetry is on (src/telemetry/telemetry.ts)
      'telemetry-core': 'src/telemetry/telemetry-core.ts',
      // the `checkout-partner` bin (Node only), in this build so it shares the library's chunks;
      // its source starts with the `#!` line esbuild keeps
      cli: 'src/cli/index.ts',
    },
    format: ['esm'],
    // One build for every ESM entry, split into shared chunks: each SDK class and each module exists
    // once, so `instanceof` holds across entry points.
    splitting: true,
    // Every dependency stays external (tsup's default for `dependencies` and peers): zod, jose and ky are the
    // partner's installed copies, so the schemas the SDK exports are built by the partner's zod and
    // an app's bundler dedupes jose and ky with its own.
    define: { __CHECKOUT_SDK_CJS__: 'false' },
    treeshake: true,
  },
  {
    ...LIBRARY,
    // The CommonJS build loads through `require` alone, in every runner (Jest's CommonJS mode, whose
    // `require` cannot load ES modules and which has no `import()` without --experimental-vm-modules;
    // Node 22 before require(esm)). Its entries share chunks (CJS_CHUNKS above), so each SDK class
    // exists once in this format too. zod ships CommonJS and stays external (the partner's); the
    // ESM-only dependencies (jose 6, ky 2) are bundled, once, in the shared chunks.
    // The optional peers (msw, @opentelemetry/api, the store drivers) stay external, loaded with the
    // module's own `require` (__CHECKOUT_SDK_CJS__), so a runner's module registry (Jest's) serves them.
    entry: { ...ENTRIES, ...OTEL_API },
    format: ['cjs'],
    plugins: [CJS_CHUNKS],
    // tsup's own `splitting` would rewrite the chunks with sucrase (see CJS_CHUNKS)
    splitting: false,
    noExternal: [/^jose(\/|$)/, /^ky(\/|$)/],
    define: { __CHECKOUT_SDK_CJS__: 'true' },
    // esbuild's tree shaking only: tsup's rollup pass would bring `import()` back into the CommonJS
    treeshake: false,
    // `import.meta.url` from `__filename` (the ESM loading paths, unused in this build but compiled)
    shims: true,
  },
]);
