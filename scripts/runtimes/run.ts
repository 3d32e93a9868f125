/**
 * `npm run test:runtimes`: the smoke suite (smoke.ts: token exchange, the three GETs, a 404, sign /
 * verify / parse, a webhook verified, confirmed and deduplicated by the handler) on Node 22, 24
 * and 26, Bun, Deno, and workerd through miniflare 4, each importing the BUILT package the way
 * that runtime resolves it, against the fake checkout service served on 127.0.0.1 by this (Node)
 * process.
 *
 * The suite runs from a throwaway consumer directory whose node_modules/checkout-partner-sdk links
 * to this repository, so each runtime resolves package.json `exports` with its own conditions.
 * For workerd it is bundled with esbuild (platform browser, conditions workerd/worker/browser) and
 * run without nodejs_compat. Runtimes are fetched into a cache (provision.ts), never the lockfile.
 * Prints the time of each run; exits non-zero when any runtime fails. Env: RUNTIMES=node22,bun,...
 * to run a subset.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { assertFreshBuild, FROM_SRC, killAll, ROOT, spawnBounded } from '../chaos/children.js';
import { provisionBun, provisionDeno, provisionMiniflare, provisionNode, VERSIONS } from './provision.js';

const PARTNER_ID = 'runtime-partner';
const PARTNER_SECRET = 'runtime-partner-secret';
const RUN_LIMIT_MS = 120_000;
const started = performance.now();
const hardStop = setTimeout(() => {
  process.stderr.write('FAIL: the runtime matrix exceeded its 15 min hard limit\n');
  killAll();
  process.exit(1);
}, 15 * 60_000);

interface Row {
  runtime: string;
  version: string;
  provisionMs: number;
  runMs: number;
  ok: boolean;
  detail: string;
}

const rows: Row[] = [];
const here = join(ROOT, 'scripts', 'runtimes');
const consumer = mkdtempSync(join(tmpdir(), 'runtime-smoke-'));
const fake = createFakeCheckout({ partners: [{ partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET }] });
fake.setOrder({ externalId: 'smoke order/1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
fake.setWithdrawal({ externalId: 'w-1', status: 'Completed' });
const server = await fake.listen({ host: '127.0.0.1' });

try {
  if (!FROM_SRC) assertFreshBuild(['index.js', 'webhooks.js', 'webhooks.node.js', 'index.cjs', 'testing.js']);
  // a consumer project: the package is a dependency, resolved through its `exports`
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'runtime-smoke', private: true, type: 'module' }));
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2023', module: 'ESNext', moduleResolution: 'Bundler' } }),
  );
  mkdirSync(join(consumer, 'node_modules'));
  symlinkSync(ROOT, join(consumer, 'node_modules', 'checkout-partner-sdk'), 'dir');
  for (const file of ['smoke.ts', 'smoke-cli.ts', 'smoke-worker.ts']) copyFileSync(join(here, file), join(consumer, file));

  // Node, Bun, Deno: one ES module, the package left for the runtime to resolve
  await build({
    absWorkingDir: consumer,
    entryPoints: ['smoke-cli.ts'],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: ['checkout-partner-sdk', 'checkout-partner-sdk/*', 'node:*'],
    outfile: join(consumer, 'smoke-cli.mjs'),
    logLevel: 'warning',
  });
  // workerd: everything bundled the way Wrangler does for Workers
  await build({
    absWorkingDir: consumer,
    entryPoints: ['smoke-worker.ts'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    target: 'es2022',
    outfile: join(consumer, 'smoke-worker.mjs'),
    logLevel: 'warning',
  });
  writeFileSync(
    join(consumer, 'miniflare-run.mjs'),
    `// Runs the bundled worker in workerd through miniflare 4 and prints what it answered.
const [miniflareEntry, baseUrl, partnerId, partnerSecret] = process.argv.slice(2);
const { Miniflare } = await import(miniflareEntry);
const mf = new Miniflare({
  modules: true,
  scriptPath: ${JSON.stringify(join(consumer, 'smoke-worker.mjs'))},
  compatibilityDate: '2025-09-01',
  bindings: { BASE_URL: baseUrl, PARTNER_ID: partnerId, PARTNER_SECRET: partnerSecret },
});
try {
  const response = await mf.dispatchFetch('http://localhost/');
  console.log(await response.text());
  process.exitCode = response.status === 200 ? 0 : 1;
} finally {
  await mf.dispose();
}
`,
  );

  const args = [server.url, PARTNER_ID, PARTNER_SECRET];
  const only = process.env.RUNTIMES?.split(',').map((s) => s.trim());
  const matrix: { runtime: string; version: string; provision: () => string; command: (bin: string) => [string, string[]] }[] = [
    {
      runtime: 'node22',
      version: VERSIONS.node22,
      provision: () => provisionNode(VERSIONS.node22),
      command: (bin) => [bin, ['smoke-cli.mjs', ...args]],
    },
    {
      runtime: 'node24',
      version: process.versions.node,
      provision: () => process.execPath,
      command: (bin) => [bin, ['smoke-cli.mjs', ...args]],
    },
    {
      runtime: 'node26',
      version: VERSIONS.node26,
      provision: () => provisionNode(VERSIONS.node26),
      command: (bin) => [bin, ['smoke-cli.mjs', ...args]],
    },
    { runtime: 'bun', version: VERSIONS.bun, provision: provisionBun, command: (bin) => [bin, ['smoke-cli.mjs', ...args]] },
    {
      runtime: 'deno',
      version: VERSIONS.deno,
      provision: provisionDeno,
      // only loopback network, read access for node_modules; no env, no write, no run
      command: (bin) => [bin, ['run', `--allow-net=${new URL(server.url).host}`, '--allow-read', 'smoke-cli.mjs', ...args]],
    },
    {
      runtime: 'workerd',
      version: `miniflare ${VERSIONS.miniflare}`,
      provision: provisionMiniflare,
      command: (dir) => [
        process.execPath,
        ['miniflare-run.mjs', join(dir, 'node_modules', 'miniflare', 'dist', 'src', 'index.js'), ...args],
      ],
    },
  ];

  for (const entry of matrix) {
    if (only && !only.includes(entry.runtime)) continue;
    const t0 = performance.now();
    let bin: string;
    try {
      bin = entry.provision();
    } catch (error) {
      rows.push({
        runtime: entry.runtime,
        version: entry.version,
        provisionMs: performance.now() - t0,
        runMs: 0,
        ok: false,
        detail: `provisioning failed: ${String(error).slice(0, 400)}`,
      });
      continue;
    }
    const provisionMs = performance.now() - t0;
    const [command, commandArgs] = entry.command(bin);
    const t1 = performance.now();
    const child = spawnBounded(command, commandArgs, {
      name: entry.runtime,
      cwd: consumer,
      timeoutMs: RUN_LIMIT_MS,
      env: { NO_COLOR: '1' },
    });
    const exit = await child.exited;
    const runMs = performance.now() - t1;
    const line = child.output.stdout.split('\n').find((l) => l.startsWith('SMOKE '));
    let detail = '';
    let ok = false;
    if (line === undefined) {
      detail = `no result (exit ${exit.code}${exit.timedOut ? ', timed out' : ''}): ${(child.output.stderr || child.output.stdout).trim().slice(-600)}`;
    } else {
      const result = JSON.parse(line.slice(6)) as { ok: boolean; runtime: string; checks: string[]; failure?: string };
      ok = result.ok && exit.code === 0;
      detail = result.ok
        ? `${result.runtime}: ${result.checks.length} checks`
        : `${result.runtime}: FAILED ${result.failure} (passed: ${result.checks.join(', ')})`;
    }
    rows.push({ runtime: entry.runtime, version: entry.version, provisionMs, runMs, ok, detail });
  }
} finally {
  await server.close();
  killAll();
  // RUNTIMES_KEEP=1 keeps the consumer directory (the bundles each runtime ran) for a look after a failure
  if (!process.env.RUNTIMES_KEEP) rmSync(consumer, { recursive: true, force: true });
  clearTimeout(hardStop);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
console.log(`\nruntime matrix (built package${FROM_SRC ? ', SDK_FROM_SRC' : ''}), fake service on loopback:`);
for (const row of rows) {
  console.log(
    `  ${row.ok ? 'ok  ' : 'FAIL'} ${row.runtime.padEnd(8)} ${row.version.padEnd(26)} run ${seconds(row.runMs).padStart(7)}  (provision ${seconds(row.provisionMs)})  ${row.detail}`,
  );
}
console.log(`  total ${seconds(performance.now() - started)}`);
const failed = rows.filter((r) => !r.ok);
if (failed.length > 0 || rows.length === 0) {
  console.error(`\nruntimes: FAIL (${failed.map((r) => r.runtime).join(', ') || 'nothing ran'})`);
  process.exitCode = 1;
} else {
  console.log('\nruntimes: PASS');
}
