import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Without @opentelemetry/api (an optional peer): a child process in which a module hook makes every
// @opentelemetry/* package unresolvable, as in an app that never installed it.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('without @opentelemetry/api', () => {
  it('imports without looking for it, then calls, fails and handles webhooks as usual, emitting nothing', { timeout: 30_000 }, () => {
    const child = spawnSync(
      process.execPath,
      ['--import', './test/telemetry/fixtures/hide-otel.mjs', '--import', 'tsx', 'test/telemetry/fixtures/api-absent.ts'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 25_000,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      },
    );
    // a tracerProvider is given (the fixture's), so somebody expects spans: said once, for every call
    // the memory-store notice (test/internal/memory-notice.test.ts) aside
    const lines = child.stderr
      .trim()
      .split('\n')
      .filter((line) => !line.includes(' notice memory-store: '));
    expect(lines).toEqual([
      expect.stringMatching(
        /^checkout-partner-sdk: OpenTelemetry is in use but the SDK cannot load @opentelemetry\/api .*openTelemetryApi/,
      ),
    ]);
    expect(child.status).toBe(0);
    const result = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(result).toEqual({
      lookupsAtImport: 0, // nothing at import
      lookups: 1, // the first call looked once, found nothing, and never looked again
      order: 'Settled',
      notFound: true,
      webhook: 200,
      traceparent: false,
    });
  });
});
