// Part 5: bundle size and start-up.
// (a) one status read as CI measures it (scripts/entry-size.mjs: an app that makes one read, split
//     by esbuild, every chunk but telemetry's counted, each gzipped), and esbuild bundles
//     (minified, ESM, platform browser, gzip level 9) of one-line apps that import CheckoutClient,
//     createWebhookHandler, OpenAI and Stripe from their packages (everything in, one file).
// (b) cold import: `node app.mjs` where app.mjs only imports the package, against `node empty.mjs`,
//     spawned N times each, interleaved; the median wall time minus the empty script's median.
//     Each app also reports the import's own time measured inside the process (median), and a
//     script that only touches Node's fetch shows what loading it costs any fetch-based client, and
//     the SDK's dependencies (zod/mini, its locales, jose root vs jose/jwt/decode, ky) alone show
//     what each would cost loaded from node_modules; what the main entry loads of them at import
//     (zod/mini, jose/jwt/decode and ky), together, is the floor under the SDK's own import.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { flag, median, report } from '../lib/measure.mjs';
import { measureRead } from '../../scripts/entry-size.mjs';

const bench = join(dirname(fileURLToPath(import.meta.url)), '..');
const apps = {
  CheckoutClient: `export { CheckoutClient } from 'checkout-partner-sdk';`,
  createWebhookHandler: `export { createWebhookHandler } from 'checkout-partner-sdk/webhooks';`,
  openai: `export { default as OpenAI } from 'openai';`,
  stripe: `export { default as Stripe } from 'stripe';`,
};

const read = await measureRead(join(bench, 'node_modules', 'checkout-partner-sdk'));
const sizes = {};
for (const [name, contents] of Object.entries(apps)) {
  const result = await build({
    stdin: { contents, resolveDir: bench, sourcefile: `${name}-app.mjs`, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['node:*'],
    write: false,
    logLevel: 'silent',
    // the repository's tsconfig maps the package name to src/ for tests: bundle what npm ships
    tsconfigRaw: '{}',
  });
  const code = result.outputFiles[0].contents;
  sizes[name] = { minifiedBytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength };
}

const runs = Number(flag('startup-runs', 15));
const dir = join(bench, '.tmp', 'startup');
mkdirSync(dir, { recursive: true });
const scripts = {
  'empty script': '',
  // Node loads its fetch (undici) on first use; ky touches Request at import, so the SDK pays it
  // there while a raw-fetch app pays it at its first request: this row shows what that costs
  "Node's fetch, first touch": `Promise.resolve(globalThis.Request)`,
  // the SDK's dependencies on their own, as Node loads them from node_modules (zod is the app's
  // own, never bundled: every public entry of zod 4 loads its ~60 locale modules)
  'zod/mini (all locales)': `import('zod/mini')`,
  'zod/v4/locales alone': `import('zod/v4/locales')`,
  'jose (root)': `import('jose')`,
  'jose/jwt/decode': `import('jose/jwt/decode')`,
  ky: `import('ky')`,
  // what the main entry loads of its dependencies at import
  'zod/mini + jose/jwt/decode + ky': `Promise.all([import('zod/mini'), import('jose/jwt/decode'), import('ky')])`,
  'checkout-partner-sdk': `import('checkout-partner-sdk')`,
  'checkout-partner-sdk/webhooks': `import('checkout-partner-sdk/webhooks')`,
  openai: `import('openai')`,
  stripe: `import('stripe')`,
};
const files = {};
for (const [name, expression] of Object.entries(scripts)) {
  const file = join(dir, `${name.replace(/[^a-z]+/gi, '-')}.mjs`);
  const body =
    expression === ''
      ? `process.stdout.write('0');\n`
      : `const t0 = performance.now();\nawait ${expression};\nprocess.stdout.write(String(performance.now() - t0));\n`;
  writeFileSync(file, body);
  files[name] = file;
}
const env = { ...process.env };
delete env.NODE_COMPILE_CACHE; // measure a cold start
delete env.NODE_OPTIONS;
const wall = Object.fromEntries(Object.keys(scripts).map((k) => [k, []]));
const inside = Object.fromEntries(Object.keys(scripts).map((k) => [k, []]));
const names = Object.keys(scripts);
for (const name of names) spawnSync(process.execPath, [files[name]], { env }); // warm the file cache
for (let r = 0; r < runs; r++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + r) % names.length];
    const t0 = process.hrtime.bigint();
    const run = spawnSync(process.execPath, [files[name]], { env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (run.status !== 0) throw new Error(`${name} failed: ${run.stderr}`);
    wall[name].push(ms);
    inside[name].push(Number(run.stdout));
  }
}
const emptyMs = median(wall['empty script']);
const startup = Object.fromEntries(
  names.map((name) => [name, { medianMs: median(wall[name]), overEmptyMs: median(wall[name]) - emptyMs, importMs: median(inside[name]) }]),
);
report({ read, sizes, startup, startupRuns: runs });
