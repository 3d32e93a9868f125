// The layout's rules, checked by `npm run check:deps` (and in .ci/run). Type-only imports count:
// a type in the wrong room is what a cycle shows first. See src/internal/README.md.

/** Folders of src/ that hold one feature each (entry points and their private files). */
const FEATURES = '(client|webhooks|stores|redis|postgres|testing|cli|tracker|telemetry)';

/**
 * The files a test may import from src/ directly: entry points (tests import the package by name),
 * and the flavours of the package's own import `#otel-api` (package.json `imports`).
 */
const ENTRY_POINTS = [
  '^src/index[.]ts$',
  '^src/[^/]+/index[.]ts$',
  '^src/webhooks/index[.]node[.]ts$',
  '^src/testing/msw[.]ts$',
  '^src/telemetry/otel-api[.][a-z]+[.]ts$',
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
      comment:
        'A store implements a contract of src/stores/ (event-store.ts, status-store.ts, token-store.ts), which holds what the stores share; it never reaches into the client, the tracker or the webhook engine.',
      severity: 'error',
      from: { path: '^src/(stores|redis|postgres)/' },
      to: { path: `^src/${FEATURES}/`, pathNot: '^src/(stores|$1)/' },
    },
    {
      name: 'tests-through-entry-points',
      comment: "Tests import the package by its public names (aliased to src/), not a feature's private files.",
      severity: 'error',
      from: { path: '^test/' },
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
