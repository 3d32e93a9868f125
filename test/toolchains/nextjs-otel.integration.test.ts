// OpenTelemetry in a Next.js app (current major, from the registry) with @opentelemetry/api
// installed: a route registers a tracer provider (an in-memory exporter) and reads an order. Built
// by `next build` with Turbopack and with webpack (whose `webpack` condition makes the SDK read the
// API's global registry instead of importing it), each then served by `next start`: the route lists
// the SDK's spans, and no line of either build, or of the server, names the SDK.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';
import { childEnv, packedProject, registryUsable, run, start, type PackedProject } from '../examples/packed-project.js';

const ROUTE = `import * as api from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { CheckoutClient } from 'checkout-partner-sdk';

export const dynamic = 'force-dynamic';

const KEY = Symbol.for('nextjs-otel-test exporter');

/** The app's exporter, registered once per process (a route module may be evaluated more than once). */
function exporter(): InMemorySpanExporter {
  const global = globalThis as unknown as Record<symbol, InMemorySpanExporter | undefined>;
  let found = global[KEY];
  if (found === undefined) {
    found = new InMemorySpanExporter();
    api.trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: found })] }));
    global[KEY] = found;
  }
  return found;
}

export async function GET(): Promise<Response> {
  const spans = exporter();
  const client = new CheckoutClient({ baseUrl: process.env.CHECKOUT_BASE_URL ?? '', partnerId: 'p-otel', partnerSecret: 's-otel' });
  await client.getOrderByExternalId('o-1');
  const sdk = spans.getFinishedSpans().filter((span) => span.instrumentationScope.name === 'checkout-partner-sdk');
  return Response.json({ spans: sdk.map((span) => span.name) });
}
`;

/** The lines of an output that name the SDK (the project's temp dir, named after the SDK too, aside). */
const sdkLines = (output: string, dir: string) =>
  output
    .replaceAll(dir, '<project>')
    .split('\n')
    .filter((line) => line.includes('checkout-partner-sdk'));

const usable = await registryUsable('test/toolchains/nextjs-otel.integration.test.ts (npm install next)');

describe.skipIf(!usable)('OpenTelemetry in a Next.js app with @opentelemetry/api installed', () => {
  let project: PackedProject;
  const fake = createFakeCheckout({ partners: [{ partnerId: 'p-otel', partnerSecret: 's-otel' }] });
  fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });

  beforeAll(async () => {
    project = await packedProject('nextjs-otel', {
      next: '16',
      react: '19',
      'react-dom': '19',
      typescript: '5',
      '@types/react': '19',
      '@types/node': '24',
      '@opentelemetry/api': '^1.10.0',
      '@opentelemetry/sdk-trace': '^3.1.0',
    });
    await mkdir(join(project.dir, 'app', 'api', 'otel'), { recursive: true });
    await writeFile(join(project.dir, 'app', 'api', 'otel', 'route.ts'), ROUTE);
  }, 900_000);

  afterAll(async () => {
    await project?.remove();
  });

  it.each([
    ['Turbopack', []],
    ['webpack', ['--webpack']],
  ] as const)(
    'next build (%s), then next start: the route gets the SDK spans; nothing names the SDK',
    { timeout: 600_000 },
    async (_, flags) => {
      const env = childEnv({ NEXT_TELEMETRY_DISABLED: '1' });
      const built = await run(process.execPath, ['node_modules/next/dist/bin/next', 'build', ...flags], {
        cwd: project.dir,
        env,
        timeoutMs: 540_000,
      });
      expect(built).toMatch(/ƒ \/api\/otel/);
      expect(sdkLines(built, project.dir)).toEqual([]);

      const server = await fake.listen();
      const port = await freePort();
      const next = start(process.execPath, ['node_modules/next/dist/bin/next', 'start', '-p', String(port), '-H', '127.0.0.1'], {
        cwd: project.dir,
        env: childEnv({ NEXT_TELEMETRY_DISABLED: '1', CHECKOUT_BASE_URL: server.url }),
      });
      try {
        const base = `http://127.0.0.1:${port}`;
        const up = await eventually(async () => {
          if (next.process.exitCode !== null) return true; // exited: reported below
          return fetch(`${base}/`).then(
            () => true,
            () => false,
          );
        }, 60_000);
        expect(up, next.output()).toBe(true);
        expect(next.process.exitCode, next.output()).toBeNull();
        const response = await fetch(`${base}/api/otel`);
        expect(response.status, next.output()).toBe(200);
        expect(await response.json()).toEqual({ spans: ['POST /auth/token', 'GET /orders/by-external-id/{externalId}'] });
        expect(sdkLines(next.output(), project.dir)).toEqual([]);
      } finally {
        await next.stop();
        await server.close();
      }
    },
  );
});
