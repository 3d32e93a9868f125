import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('examples/observability.ts', () => {
  it('prints the spans and metrics of calls and deliveries through the OpenTelemetry Node SDK', { timeout: 40_000 }, () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'examples/observability.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    expect(run.status, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toContain('deliveries answered: 200, 200, 401');
    expect(out).toContain('observability example done');
    // spans (ConsoleSpanExporter): the exchange, the reads, the failure, the deliveries
    for (const name of [
      "name: 'POST /auth/token'",
      "name: 'GET /orders/by-external-id/{externalId}'",
      "name: 'checkout.webhook.delivery'",
      "name: 'reconcile order-42'",
    ]) {
      expect(out).toContain(name);
    }
    expect(out).toContain("'checkout.attempts': 2");
    expect(out).toContain("'error.type': '404'");
    expect(out).toContain("'checkout.webhook.outcome': 'duplicate'");
    expect(out).toContain("'checkout.webhook.outcome': 'bad-signature'");
    // metrics (ConsoleMetricExporter, at shutdown)
    for (const name of [
      'http.client.request.duration',
      'checkout.client.retries',
      'checkout.client.token.exchanges',
      'checkout.webhook.delivery.duration',
    ]) {
      expect(out).toContain(`name: '${name}'`);
    }
    expect(out).not.toMatch(/eyJ[\w-]+\.[\w-]+\./); // no token printed
  });
});
