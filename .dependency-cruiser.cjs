// The layout's rules, checked by `npm run check:deps` (and in .ci/run). Type-only imports count:
// a type in the wrong room is what a cycle shows first. See src/internal/README.md.

/** Folders of src/ that hold one feature each (entry points and their private files). */
const FEATURES = '(client|webhooks|stores|redis|postgres|testing|cli|tracker|telemetry)';

/**
 * What a store (src/stores, src/redis, src/postgres) may import from another feature: the types it
 * implements (`TokenStore`) and the errors it throws, never an engine's private file.
 */
const STORE_CONTRACTS = [
  '^src/client/token-store[.]ts$',
  '^src/webhooks/errors[.]ts$',
  '^src/tracker/types[.]ts$',
  // the bounded form of a nudge's event, which the StatusStore contract requires a store to keep
  '^src/tracker/event-projection[.]ts$',
  // RedisStatusStore (from the tracker branch) checks ids with tracker/arguments.ts and reads
  // webhooks/event.ts: to move behind the tracker's types (or into src/stores/)
  '^src/tracker/arguments[.]ts$',
  '^src/webhooks/event[.]ts$',
];

/** The files a test may import from src/ directly: entry points (tests import the package by name). */
const ENTRY_POINTS = [
  '^src/index[.]ts$',
  '^src/[^/]+/index[.]ts$',
  '^src/webhooks/index[.]node[.]ts$',
  '^src/testing/msw[.]ts$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle (type-only ones included) means a type lives in the wrong file: move it to a types-only file both import.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'internal-is-generic',
      comment: 'src/internal/ holds generic helpers: it imports nothing from the rest of src/ (src/internal/README.md).',
      severity: 'error',
      from: { path: '^src/internal/' },
      to: { path: '^src/', pathNot: '^src/internal/' },
    },
    {
      name: 'engine-not-on-adapters',
      comment: 'The webhook engine takes small platform functions; the framework adapters depend on it, never the reverse.',
      severity: 'error',
      from: { path: '^src/webhooks/(engine|signature)/' },
      to: { path: '^src/webhooks/adapters/' },
    },
    {
      name: 'stores-through-contracts',
      comment: 'A store implements a contract (src/stores/event-store.ts, src/client/token-store.ts); it never reaches into the client or the webhook engine.',
      severity: 'error',
      from: { path: '^src/(stores|redis|postgres)/' },
      to: { path: `^src/${FEATURES}/`, pathNot: ['^src/(stores|redis|postgres)/', ...STORE_CONTRACTS] },
    },
    {
      name: 'tests-through-entry-points',
      comment: 'Tests import the package by its public names (aliased to src/), not a feature\'s private files.',
      severity: 'error',
      // entry-build.test.ts mocks the signing module to count how often each entry point builds it;
      // client/load/hooks.test.ts and telemetry/feature-hooks.test.ts drive internals directly: to move onto the public API
      from: {
        path: '^test/',
        pathNot: ['^test/webhooks/entry-build[.]test[.]ts$', '^test/client/load/hooks[.]test[.]ts$', '^test/telemetry/feature-hooks[.]test[.]ts$'],
      },
      to: { path: '^src/', pathNot: ENTRY_POINTS },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
