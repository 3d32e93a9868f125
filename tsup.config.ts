import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // One build for every library entry, so they share chunks: the node flavour of ./webhooks and
    // the main entry then share one error tree, and `instanceof CheckoutError` holds across them.
    entry: {
      index: 'src/index.ts',
      webhooks: 'src/webhooks/index.ts',
      // the `node` export condition of ./webhooks: HMAC through node:crypto with pre-made KeyObjects
      'webhooks.node': 'src/webhooks/index.node.ts',
      redis: 'src/redis/index.ts',
      postgres: 'src/postgres/index.ts',
      tracker: 'src/tracker/index.ts',
      testing: 'src/testing/index.ts',
      'testing/msw': 'src/testing/msw.ts',
      // not an export: imported at the first call while OpenTelemetry is on (src/telemetry/telemetry.ts)
      'telemetry-core': 'src/telemetry/telemetry-core.ts',
    },
    dts: {
      entry: {
        index: 'src/index.ts',
        webhooks: 'src/webhooks/index.ts',
        redis: 'src/redis/index.ts',
        postgres: 'src/postgres/index.ts',
        tracker: 'src/tracker/index.ts',
        testing: 'src/testing/index.ts',
        'testing/msw': 'src/testing/msw.ts',
      },
    },
    format: ['esm', 'cjs'],
    platform: 'neutral',
    external: [/^node:/],
    // zod is bundled (tree-shaken), not loaded from node_modules: every public zod entry (zod/mini,
    // zod/v4/core) re-exports all ~60 locale modules, which cost most of the package's cold start.
    // zod stays a dependency for the declarations; its global config (z.config, locales) lives on
    // globalThis, so a partner's own zod still configures ours. See README.md (Performance).
    noExternal: [/^zod(\/|$)/],
    removeNodeProtocol: false, // Deno and Workers resolve only the `node:` form
    target: 'es2023',
    splitting: true,
    treeshake: true,
    sourcemap: true,
    clean: true,
    // `import.meta.url` in the CJS build (the testing kit's lazy `require` of msw) from `__filename`
    shims: true,
  },
  {
    entry: { cli: 'src/cli/index.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node22',
    removeNodeProtocol: false,
    sourcemap: false, // a command, not a library: its map would be most of the tarball
    banner: { js: '#!/usr/bin/env node' },
  },
]);
