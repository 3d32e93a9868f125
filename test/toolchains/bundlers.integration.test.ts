import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createFakeCheckout, type FakeServer } from 'checkout-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawn, toolProject } from './packed.js';
import { provisionMiniflare } from '../../scripts/runtimes/provision.js';

const execFileAsync = promisify(execFile);

// OpenTelemetry from bundled apps: a tiny app (an in-memory span exporter and metric reader, two
// client calls) bundled from the packed SDK by the real esbuild (CommonJS and ESM) and webpack 5
// (ES module and CommonJS app), with @opentelemetry/api external or bundled in, then run from
// another folder (as deployed), against the fake checkout service served here; and the same app
// unbundled, under Node and as a Jest 30 test (CommonJS and ESM modes).
const TOOLS = [
  'esbuild@0.28',
  'webpack@5',
  '@opentelemetry/api@^1.10.0',
  '@opentelemetry/sdk-trace@^3.1.0',
  '@opentelemetry/sdk-metrics@^3.1.0',
  'jest@30',
];

const APP = `
import * as api from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { CheckoutClient } from 'checkout-partner-sdk';

class PullReader extends MetricReader {
  onShutdown() { return Promise.resolve(); }
  onForceFlush() { return Promise.resolve(); }
}
async function main() {
  const exporter = new InMemorySpanExporter();
  api.trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
  const reader = new PullReader();
  api.metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  const client = new CheckoutClient({
    baseUrl: process.env.CHECKOUT_URL, partnerId: 'p-1', partnerSecret: 's-1',
    ...(process.env.PASS_API === '1' ? { openTelemetryApi: api } : {}),
  });
  await client.getOrderByExternalId('o-1');
  await client.getOrderByExternalId('o-1');
  const { resourceMetrics } = await reader.collect();
  const metrics = resourceMetrics.scopeMetrics.filter((s) => s.scope.name === 'checkout-partner-sdk').flatMap((s) => s.metrics.map((m) => m.descriptor.name));
  return { spans: exporter.getFinishedSpans().map((s) => s.name), metrics };
}
main().then((result) => console.log(JSON.stringify(result)), (error) => { console.error(error); process.exit(1); });
`;

const WEBPACK = `
const webpack = require('webpack');
const [out, external, entry] = process.argv.slice(2);
webpack({
  mode: 'production', target: 'node', context: __dirname, entry,
  output: { path: out, filename: 'app.js' },
  externals: external === 'external' ? { '@opentelemetry/api': 'commonjs @opentelemetry/api' } : {},
}, (error, stats) => {
  if (error) throw error;
  if (stats.hasErrors()) { console.error(stats.toString({ all: false, errors: true })); process.exit(1); }
  if (stats.hasWarnings()) console.error(stats.toString({ all: false, warnings: true }));
});
`;

/** The same app in CommonJS (`require`): webpack then resolves the SDK's CommonJS build. */
const commonJs = (app: string) =>
  app
    .replace(/^import \* as (\w+) from ('[^']+');$/gm, 'const $1 = require($2);')
    .replace(/^import \{([^}]+)\} from ('[^']+');$/gm, 'const {$1} = require($2);');

/** The same app as a Jest test file: what it records is what it asserts. */
const jestTest = (app: string) =>
  app.replace(
    /^main\(\)\.then.*$/m,
    () => `test('spans and metrics reach the app providers', async () => {
  const { spans, metrics } = await main();
  expect(spans).toEqual(${JSON.stringify(SPANS)});
  expect(metrics).toEqual(expect.arrayContaining(['http.client.request.duration', 'checkout.client.token.exchanges']));
});`,
  );

const SPANS = ['POST /auth/token', 'GET /orders/by-external-id/{externalId}', 'GET /orders/by-external-id/{externalId}'];

const work = mkdtempSync(join(tmpdir(), 'checkout-bundlers-'));
let dir = '';
let server: FakeServer;

beforeAll(async () => {
  dir = toolProject(join(work, 'app'), TOOLS);
  writeFileSync(join(dir, 'app.mjs'), APP);
  writeFileSync(join(dir, 'app.cjs'), commonJs(APP));
  writeFileSync(join(dir, 'webpack.cjs'), WEBPACK);
  const fake = createFakeCheckout({ partners: [{ partnerId: 'p-1', partnerSecret: 's-1' }] });
  fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
  server = await fake.listen();
}, 900_000);
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A folder holding the build output and only the packages named, as a deployed app has it. */
function deploy(name: string, output: string, packages: string[]): string {
  const target = join(work, 'deploy', name);
  mkdirSync(target, { recursive: true });
  cpSync(output, target, { recursive: true });
  for (const pkg of packages) cpSync(join(dir, 'node_modules', pkg), join(target, 'node_modules', pkg), { recursive: true });
  return target;
}

/** Runs the app (asynchronously: the fake it calls is served by this process). */
async function runApp(
  cwd: string,
  file: string,
  env: Record<string, string> = {},
): Promise<{ spans: string[]; metrics: string[]; stderr: string }> {
  const { stdout, stderr } = await execFileAsync(process.execPath, [file], {
    cwd,
    env: { PATH: process.env.PATH ?? '', CHECKOUT_URL: server.url, ...env },
    timeout: 60_000,
  });
  return { ...(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { spans: string[]; metrics: string[] }), stderr };
}

/**
 * Runs a build; fails with its output unless it exits 0 and no line of that output (warnings
 * included) names the SDK: nothing of the SDK's may appear in a partner's build.
 */
function build(command: string, args: string[], options: { cwd: string; timeoutMs?: number }): void {
  const result = spawn(command, args, options);
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${output.slice(-4000)}`);
  expect(
    output
      .replaceAll(work, '<work>')
      .split('\n')
      .filter((line) => line.includes('checkout-partner-sdk')),
  ).toEqual([]);
}

function esbuild(format: 'cjs' | 'esm', externals: string[], outfile: string): void {
  build(
    join(dir, 'node_modules/.bin/esbuild'),
    [
      'app.mjs',
      '--bundle',
      '--platform=node',
      `--format=${format}`,
      `--outfile=${outfile}`,
      '--log-level=warning',
      ...externals.map((name) => `--external:${name}`),
      // the usual banner of a single-file ESM bundle holding CommonJS packages (the OpenTelemetry SDK)
      ...(format === 'esm'
        ? ["--banner:js=import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"]
        : []),
    ],
    { cwd: dir },
  );
}

function expectTelemetry({ spans, metrics, stderr }: Awaited<ReturnType<typeof runApp>>): void {
  expect(spans).toEqual(SPANS);
  expect(metrics).toEqual(expect.arrayContaining(['http.client.request.duration', 'checkout.client.token.exchanges']));
  expect(stderr).toBe('');
}

/** No file of the output holds a path of the machine that built it. */
function expectNoBuildPaths(output: string): void {
  for (const file of readdirSync(output, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())) {
    const text = readFileSync(join(file.parentPath, file.name), 'utf8');
    expect(text.includes(work), file.name).toBe(false);
    expect(text.includes(ROOT), file.name).toBe(false);
  }
}

describe.each(['cjs', 'esm'] as const)('esbuild --format=%s', (format) => {
  it.each(['external', 'bundled'] as const)(
    'spans and metrics with @opentelemetry/api %s',
    async (api) => {
      const out = join(dir, `out-esbuild-${format}-${api}`);
      const file = format === 'cjs' ? 'app.cjs' : 'app.mjs';
      esbuild(format, api === 'external' ? ['@opentelemetry/api'] : [], join(out, file));
      const deployed = deploy(`esbuild-${format}-${api}`, out, api === 'external' ? ['@opentelemetry/api'] : []);
      expectTelemetry(await runApp(deployed, file));
      expectNoBuildPaths(out);
    },
    120_000,
  );
});

describe('webpack 5 (target node)', () => {
  it.each([
    ['external', 'app.mjs'],
    ['bundled', 'app.mjs'],
    ['bundled', 'app.cjs'],
  ] as const)(
    'spans and metrics with @opentelemetry/api %s (%s), and no build-machine path in the bundle',
    async (api, entry) => {
      const out = join(dir, `out-webpack-${api}-${entry}`);
      build(process.execPath, ['webpack.cjs', out, api, `./${entry}`], { cwd: dir, timeoutMs: 180_000 });
      const deployed = deploy(`webpack-${api}-${entry}`, out, api === 'external' ? ['@opentelemetry/api'] : []);
      expectTelemetry(await runApp(deployed, 'app.js'));
      expectNoBuildPaths(out);
    },
    240_000,
  );
});

describe('unbundled: the packed package from node_modules', () => {
  beforeAll(() => {
    writeFileSync(join(dir, 'otel.test.mjs'), jestTest(APP));
    writeFileSync(join(dir, 'otel.test.cjs'), jestTest(commonJs(APP)));
  });

  it.each(['app.mjs', 'app.cjs'] as const)(
    'Node runs %s: spans and metrics',
    async (file) => {
      expectTelemetry(await runApp(dir, file));
    },
    60_000,
  );

  it.each(['cjs', 'esm'] as const)(
    'Jest 30 (%s mode): spans and metrics reach the providers the test registered',
    async (mode) => {
      const jest = [join(dir, 'node_modules/jest/bin/jest.js'), '--ci', '--config', JSON.stringify({ transform: {} })];
      const args = [...(mode === 'esm' ? ['--experimental-vm-modules'] : []), ...jest, `otel\\.test\\.${mode === 'esm' ? 'mjs' : 'cjs'}$`];
      const result = await execFileAsync(process.execPath, args, {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', CHECKOUT_URL: server.url },
        timeout: 120_000,
      }).catch((error: unknown) => error as { stdout?: string; stderr?: string });
      const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
      expect(output).toMatch(/Tests:\s+1 passed, 1 total/);
      expect(output.split('\n').filter((line) => line.includes('checkout-partner-sdk'))).toEqual([]);
    },
    180_000,
  );
});

describe('an app whose bundle holds the API where the SDK cannot reach it', () => {
  // the SDK left external (in node_modules at run time), the API bundled into the app only
  // the SDK and its dependencies: ky, jose, and zod (yours, never bundled into the SDK)
  const SDK_AND_DEPENDENCIES = ['checkout-partner-sdk', 'jose', 'ky', 'zod'];
  let deployed = '';
  beforeAll(() => {
    const out = join(dir, 'out-sdk-external');
    esbuild('esm', ['checkout-partner-sdk'], join(out, 'app.mjs'));
    deployed = deploy('sdk-external', out, SDK_AND_DEPENDENCIES);
  }, 120_000);

  it('says so once on stderr, naming the openTelemetryApi option, and emits nothing', async () => {
    const { spans, metrics, stderr } = await runApp(deployed, 'app.mjs');
    expect(spans).toEqual([]);
    expect(metrics).toEqual([]);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1); // two calls, one line
    expect(lines[0]).toMatch(
      /^checkout-partner-sdk: OpenTelemetry is in use but the SDK cannot load @opentelemetry\/api .*openTelemetryApi/,
    );
  }, 60_000);

  it('emits through the API module given as openTelemetryApi', async () => {
    expectTelemetry(await runApp(deployed, 'app.mjs', { PASS_API: '1' }));
  }, 60_000);
});

describe('an app without @opentelemetry/api installed', () => {
  const PLAIN_APP = `
import { CheckoutClient } from 'checkout-partner-sdk';
const client = new CheckoutClient({ baseUrl: process.env.CHECKOUT_URL, partnerId: 'p-1', partnerSecret: 's-1' });
const order = await client.getOrderByExternalId('o-1');
console.log(JSON.stringify({ status: order.settlement?.status }));
`;
  let plain = '';
  beforeAll(() => {
    plain = toolProject(join(work, 'plain'), ['esbuild@0.28', 'webpack@5']);
    writeFileSync(
      join(plain, 'app.mjs'),
      PLAIN_APP.replace('const order = await', 'void (async () => { const order = await').replace('status }));', 'status })); })();'),
    );
    writeFileSync(join(plain, 'app.cjs'), commonJs(readFileSync(join(plain, 'app.mjs'), 'utf8')));
    writeFileSync(join(plain, 'webpack.cjs'), WEBPACK);
  }, 900_000);

  it.each(['esbuild cjs', 'esbuild esm', 'webpack', 'webpack cjs'] as const)(
    '%s: builds (no error), runs, and says nothing',
    async (tool) => {
      const out = join(plain, `out-${tool.replace(' ', '-')}`);
      const file = tool === 'esbuild cjs' ? 'app.cjs' : tool === 'esbuild esm' ? 'app.mjs' : 'app.js';
      if (tool.startsWith('webpack'))
        build(process.execPath, ['webpack.cjs', out, 'bundled', tool === 'webpack' ? './app.mjs' : './app.cjs'], {
          cwd: plain,
          timeoutMs: 180_000,
        });
      else
        build(
          join(plain, 'node_modules/.bin/esbuild'),
          ['app.mjs', '--bundle', '--platform=node', `--format=${tool.slice(-3)}`, `--outfile=${join(out, file)}`, '--log-level=warning'],
          { cwd: plain },
        );
      const deployed = deploy(`plain-${tool.replace(' ', '-')}`, out, []);
      const { stdout, stderr } = await execFileAsync(process.execPath, [file], {
        cwd: deployed,
        env: { PATH: process.env.PATH ?? '', CHECKOUT_URL: server.url },
        timeout: 60_000,
      });
      expect(JSON.parse(stdout.trim())).toEqual({ status: 'Pending' });
      expect(stderr).toBe('');
    },
    240_000,
  );

  // a Worker as Wrangler bundles it (platform neutral, conditions workerd/worker/browser) from a
  // project without the optional peer: it must load in workerd, which refuses a module naming an
  // import it cannot resolve (1.0.0's literal import('@opentelemetry/api') did)
  it('a Cloudflare Worker bundled by esbuild loads in workerd and reads an order', async () => {
    writeFileSync(
      join(plain, 'worker.mjs'),
      `import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';
export default {
  async fetch(_request, env) {
    const client = new CheckoutClient({ baseUrl: env.BASE_URL, partnerId: 'p-1', partnerSecret: 's-1' });
    createWebhookHandler({ secret: 'whsec', client, onEvent: async () => undefined, logger: false });
    const order = await client.getOrderByExternalId('o-1', { timeoutMs: 10_000 });
    return new Response(JSON.stringify({ status: order.settlement?.status }));
  },
};
`,
    );
    const out = join(plain, 'out-worker', 'worker.mjs');
    build(
      join(plain, 'node_modules/.bin/esbuild'),
      [
        'worker.mjs',
        '--bundle',
        '--platform=neutral',
        '--format=esm',
        '--conditions=workerd,worker,browser',
        '--main-fields=browser,module,main',
        `--outfile=${out}`,
        '--log-level=warning',
      ],
      { cwd: plain },
    );
    // no import of the peer (its name may appear in a message)
    expect(readFileSync(out, 'utf8')).not.toMatch(/import\(\s*['"]@opentelemetry\/api['"]\s*\)|^import[^;]*['"]@opentelemetry\/api['"]/m);
    const miniflare = join(provisionMiniflare(), 'node_modules', 'miniflare', 'dist', 'src', 'index.js');
    writeFileSync(
      join(plain, 'out-worker', 'run.mjs'),
      `const { Miniflare } = await import(${JSON.stringify(miniflare)});
const mf = new Miniflare({ modules: true, scriptPath: ${JSON.stringify(out)}, compatibilityDate: '2025-09-01', bindings: { BASE_URL: process.argv[2] } });
try {
  const response = await mf.dispatchFetch('http://localhost/');
  console.log(await response.text());
} finally {
  await mf.dispose();
}
`,
    );
    // run from the worker's folder: workerd refuses a module path that climbs out of the working directory
    const { stdout } = await execFileAsync(process.execPath, ['run.mjs', server.url], { cwd: join(plain, 'out-worker'), timeout: 120_000 });
    expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '')).toEqual({ status: 'Pending' });
  }, 600_000);
});
