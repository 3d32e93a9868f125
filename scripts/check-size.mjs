#!/usr/bin/env node
// Size budget of one status read, run by CI after `npm run build`: an app that makes one read,
// bundled as a partner's bundler would (scripts/entry-size.mjs, the same measurement as
// `npm run bench`), failing above the budget. The budget and the goal live in entry-size.mjs; CI
// passes none.
//   node scripts/check-size.mjs [--budget-kb=36]
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { READ_BUDGET_KB, READ_GOAL_KB, measureRead } from './entry-size.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const budgetArg = process.argv.find((arg) => arg.startsWith('--budget-kb='));
const budgetKb = budgetArg === undefined ? READ_BUDGET_KB : Number(budgetArg.slice('--budget-kb='.length));
if (!(budgetKb > 0)) {
  console.error(`check-size: --budget-kb must be a positive number, got "${budgetArg}"`);
  process.exit(2);
}
const budgetBytes = Math.round(budgetKb * 1024);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

if (!existsSync(`${root}dist/index.js`)) {
  console.error('check-size: dist/index.js not found; run `npm run build` first');
  process.exit(2);
}

const { gzipBytes, minifiedBytes, chunks, byPackage } = await measureRead(root);
// where the bytes come from, by package (minified, before gzip)
const parts = Object.entries(byPackage)
  .sort((a, b) => b[1] - a[1])
  .map(([pkg, bytes]) => `${pkg} ${kb(bytes)}`)
  .join(', ');
console.log(
  `one read bundled: ${kb(minifiedBytes)} minified (${parts}), ${kb(gzipBytes)} gzip (${gzipBytes} bytes); ` +
    `budget ${kb(budgetBytes)} gzip, goal ${kb(READ_GOAL_KB * 1024)}`,
);
const listed = chunks.map(({ file, gzipBytes: bytes, counted }) => `${file} ${kb(bytes)}${counted ? '' : ' (telemetry, not counted)'}`);
console.log(`check-size: chunks (gzip each): ${listed.join(', ')}`);
if (gzipBytes > budgetBytes) {
  console.error(
    `check-size: FAIL: one read ships ${kb(gzipBytes)} gzip (${gzipBytes} bytes), ` +
      `${kb(gzipBytes - budgetBytes)} over the ${kb(budgetBytes)} budget. ` +
      'Look for a new dependency or a large addition in the bytes by package above.',
  );
  process.exit(1);
}
console.log('check-size: ok');

// Start-up: which modules `import('checkout-partner-sdk')` makes Node load (the timing itself is in
// `npm run bench`; the module list is deterministic). jose's root holds every JOSE operation: it may
// not be loaded at import. zod is the partner's own (never bundled), and each of its public entries
// loads its ~60 locale modules: allowed.
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
  const banned = fromPackages.filter((url) => /\/jose\/dist\/[^/]+\/index\.js$/.test(url) || OTEL.test(url));
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
