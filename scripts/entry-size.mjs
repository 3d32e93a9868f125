// The main entry's size as a partner's bundler meets it, measured one way for CI
// (scripts/check-size.mjs) and for `npm run bench` (bench/parts/size.mjs): dist/index.js bundled
// with ky, jose and zod by esbuild, minified, for the browser, gzipped at level 9. The SDK's own
// lazy modules (a literal `import('./x.js')` of a sibling in dist/: the telemetry implementation)
// are what an app's bundler splits into chunks loaded only by the calls that need them: they are
// not counted in the entry, and are measured beside it.
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** Issue 29's goal for the main entry, gzip, ky, jose and zod included (stripe-node's is 32.9 KB). */
export const ENTRY_GOAL_KB = 30;
/** What CI holds the main entry to (`check-size.mjs`' default): the goal itself, so any growth past it fails CI. */
export const ENTRY_BUDGET_KB = ENTRY_GOAL_KB;

/** The bundle options of the entry and of each lazy chunk. */
const OPTIONS = {
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  // @opentelemetry/api, an optional peer, is the app's own: imported lazily by the first call that
  // could emit, and bundled only where the app has it (then it is in the app's bundle anyway)
  external: ['node:*', '@opentelemetry/api'],
  write: false,
  metafile: true,
  logLevel: 'silent',
  // the repository's tsconfig maps the package name to src/ for tests: bundle what npm ships
  tsconfigRaw: '{}',
};

const gzipOf = (bytes) => gzipSync(bytes, { level: 9 }).byteLength;

/**
 * `entry` (a built dist/index.js) bundled: its minified and gzip bytes, the minified bytes by
 * package, and each lazy chunk's gzip bytes (bundled alone, so what it shares with the entry is
 * counted again: an upper bound).
 * @returns {Promise<{ minifiedBytes: number, gzipBytes: number, byPackage: Record<string, number>, lazyChunks: Record<string, number> }>}
 */
export async function measureEntry(entry) {
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
  const result = await build({ ...OPTIONS, entryPoints: [entry], plugins: [splitLazy] });
  const code = result.outputFiles[0].contents;
  const lazyChunks = {};
  for (const path of lazy) {
    const chunk = await build({ ...OPTIONS, entryPoints: [path], metafile: false, plugins: [splitLazy] });
    lazyChunks[path.split('/').pop()] = gzipOf(chunk.outputFiles[0].contents);
  }
  const byPackage = {};
  for (const [file, { bytesInOutput }] of Object.entries(Object.values(result.metafile.outputs)[0].inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? 'checkout-partner-sdk';
    byPackage[pkg] = (byPackage[pkg] ?? 0) + bytesInOutput;
  }
  return { minifiedBytes: code.byteLength, gzipBytes: gzipOf(code), byPackage, lazyChunks };
}
