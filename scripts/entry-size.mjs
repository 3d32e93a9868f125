// The bytes a partner ships for one status read, measured one way for CI (scripts/check-size.mjs)
// and for `npm run bench` (bench/parts/size.mjs): an app that makes one read, bundled from the built
// package (dist/) with ky, jose and zod by esbuild (ESM, minified, code splitting, for the browser).
// Every chunk of the output counts, the lazily loaded ones too, except a chunk that holds only
// telemetry (loaded only where OpenTelemetry is on); each chunk is gzipped (-9) on its own.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Issue 45's budget for one read's chunks, gzip, ky, jose and zod included. */
export const READ_GOAL_KB = 36;
/** What CI holds a read to (`check-size.mjs`' default): the goal itself, so any growth past it fails CI. */
export const READ_BUDGET_KB = READ_GOAL_KB;

/** The app: one read. */
const APP = `
import { CheckoutClient } from 'checkout-partner-sdk';
const client = new CheckoutClient();
console.log(await client.getOrderByExternalId('order-1'));
`;

/** A module of the telemetry: the SDK's own (dist/telemetry-*.js, dist/otel-api.*.js) or the peer's. */
const TELEMETRY = /(?:^|\/)(?:telemetry-[^/]*|otel-api\.[^/]*)\.js$|\/@opentelemetry\//;

const gzipOf = (bytes) => gzipSync(bytes, { level: 9 }).byteLength;

/**
 * The app bundled against the package at `packageDir` (its dist/ built): each chunk's gzip bytes,
 * whether it counts, their total, and the minified bytes of the counted chunks by package.
 * @returns {Promise<{ gzipBytes: number, minifiedBytes: number, chunks: { file: string, gzipBytes: number, counted: boolean }[], byPackage: Record<string, number> }>}
 */
export async function measureRead(packageDir) {
  // imported here: the goal above is read by scripts that never bundle (bench-docs.mjs)
  const { build } = await import('esbuild');
  const result = await build({
    stdin: { contents: APP, resolveDir: packageDir, sourcefile: 'one-read-app.mjs', loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    splitting: true,
    outdir: 'out',
    platform: 'browser',
    target: 'es2022',
    // @opentelemetry/api is an optional peer: the app's own, in a telemetry chunk where it has one
    external: ['node:*', '@opentelemetry/api'],
    write: false,
    metafile: true,
    logLevel: 'silent',
    // the repository's tsconfig maps the package name to src/ for tests: bundle what npm ships
    tsconfigRaw: '{}',
    plugins: [
      {
        name: 'the-package',
        setup(b) {
          b.onResolve({ filter: /^checkout-partner-sdk$/ }, () => ({ path: join(packageDir, 'dist', 'index.js') }));
        },
      },
    ],
  });
  const chunks = [];
  const byPackage = {};
  let gzipBytes = 0;
  let minifiedBytes = 0;
  for (const file of result.outputFiles) {
    const name = file.path.split('/').pop();
    const inputs = Object.entries(result.metafile.outputs[`out/${name}`].inputs);
    const counted = !inputs.every(([input]) => TELEMETRY.test(input));
    const gzip = gzipOf(file.contents);
    chunks.push({ file: name, gzipBytes: gzip, counted });
    if (!counted) continue;
    gzipBytes += gzip;
    minifiedBytes += file.contents.byteLength;
    for (const [input, { bytesInOutput }] of inputs) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? 'checkout-partner-sdk';
      byPackage[pkg] = (byPackage[pkg] ?? 0) + bytesInOutput;
    }
  }
  return { gzipBytes, minifiedBytes, chunks, byPackage };
}
