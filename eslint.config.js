// ESLint 9 flat config: typescript-eslint's strict, type-checked rule set over every TypeScript
// file tsconfig.json includes (src, test, examples, bench, scripts, the tool configs), and the
// recommended JavaScript rules over the .mjs scripts and benchmarks (tsconfig.json has no allowJs,
// so they have no type information). Formatting is Prettier's alone (eslint-config-prettier last).
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier/flat';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // build output, generated API reference, dependencies: nothing of ours to lint
    ignores: ['dist/', 'api-docs/', 'docs/api/', 'coverage/', '.tmp/', '**/node_modules/', 'bench/.tmp/'],
  },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `${count} ms` reads better than `${String(count)} ms`; objects and unknowns stay refused
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `() => resolve()` and `(x) => log(x)` are the codebase's callbacks; TypeScript checks their return type
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // brackets mark keys from an index signature (passthrough payload fields, env), as noPropertyAccessFromIndexSignature does
      '@typescript-eslint/dot-notation': ['error', { allowIndexSignaturePropertyAccess: true }],
      // tsconfig's noUncheckedIndexedAccess types every index as possibly undefined: `heap[i]!` after a bounds check is the idiom
      '@typescript-eslint/no-non-null-assertion': 'off',
      // stylistic asks for `!` where strict's no-non-null-assertion would refuse it; `as T` stays the explicit form
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      // `env[name] || undefined` deliberately reads an empty string as absent
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // a Nest module is a decorated class with static members only (forRoot), by Nest's design
      // and an empty class is a module-private sentinel thrown to unwind (compared by identity)
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true, allowEmpty: true }],
      // an AbortSignal's reason and a caught value are passed on as they came, whatever the caller chose
      // ...and a few module-private sentinel classes are thrown to unwind a transaction or an attempt, never to a caller
      '@typescript-eslint/only-throw-error': [
        'error',
        {
          allowThrowingAny: true,
          allowThrowingUnknown: true,
          allow: [
            {
              from: 'file',
              name: [
                'Settled',
                'LeaseLost',
                'WorkFailure',
                'AttemptTimedOut',
                'BodyTooLarge',
                'FollowedRedirect',
                'PausedPastDeadline',
                'QueueFull',
              ],
            },
          ],
        },
      ],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // the SDK checks at run time what its types already forbid: JavaScript callers and casts pass anything
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // a store's methods are async without an await so that a bad argument rejects, as its Promise contract says
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['test/**/*.ts', '**/*.test.ts', '**/*.test-d.ts'],
    rules: {
      // no-op loggers and handlers are what a test passes where it does not observe
      '@typescript-eslint/no-empty-function': 'off',
      // async fakes implement Promise-returning contracts without anything to await
      '@typescript-eslint/require-await': 'off',
      // expect(store.method).toHaveBeenCalled() reads a method without calling it, by design
      '@typescript-eslint/unbound-method': 'off',
      // afterAll(() => db?.close()) guards what a failed beforeAll left unassigned; the types cannot say so
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // vitest's asymmetric matchers (expect.any, expect.stringMatching) are typed any
      '@typescript-eslint/no-unsafe-assignment': 'off',
      // `{} as CheckoutClient` stands in for an instance the test never calls
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // tests match the raw control characters that a log line or message must never carry
      'no-control-regex': 'off',
    },
  },
  {
    files: ['scripts/runtimes/**/*.ts'],
    rules: {
      // the runtime smoke checks, on Bun, Deno and workerd, what the types promise on Node
      '@typescript-eslint/no-unnecessary-condition': 'off',
    },
  },
  {
    files: ['examples/**/*.ts'],
    rules: {
      // an example's handler is async where the partner's own work (a database write) will be awaited
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // the examples, and the tests that spread fake.handlers() into msw's setupServer as a partner does
    files: [
      'examples/testing/**/*.ts',
      'test/examples/nextjs-routes.integration.test.ts',
      'test/testing/deliver-event-msw.integration.test.ts',
      'test/testing/fake.msw.test.ts',
      'test/testing/partner-routes.msw.test.ts',
      'test/testing/types.test-d.ts',
    ],
    rules: {
      // fake.handlers() is typed any[] so that /testing's types never load msw's: setupServer(...handlers) is the sample
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // JavaScript: no type information (tsconfig.json does not include .mjs), Node globals
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { ...globals.node } },
  },
  prettier,
);
