#!/usr/bin/env node
// What dist/ holds, run by CI after `npm run build`. Fails when:
// - any file of dist/ holds zod's code: zod is a peer dependency, imported from the partner's install by
//   every build, so the schemas the SDK exports are built by the partner's zod;
// - a bundled dependency (jose, ky: ESM-only, so bundled into the CommonJS build) is in more than one
//   file of a format: the entries of a format share chunks, so each module and each SDK class exists
//   once per format (and `instanceof` holds across entry points);
// - a module of the SDK itself is in more than one file of a format (the same, for the SDK's classes);
// - a comment carries a bundler annotation (`@__PURE__`) other than right before a call or a `new`
//   (scripts/annotations.ts): Rollup, so Vite, warns on each in a partner's build.
// - the ESM build bundles any dependency (each is the partner's installed copy there);
// - a file holds package.json beyond its `version` (the CLI's `--version` and the User-Agent need only that).
// Two sources, so neither can hide the other's miss: the build's record of which input went into which
// output (dist/metafile-esm.json and metafile-cjs.json, written by tsup), and the files themselves
// (a marker string of each dependency, counted per format).
//   node scripts/check-dist.mjs
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { misplacedAnnotations } from './annotations.ts';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');
if (!existsSync(join(dist, 'metafile-esm.json')) || !existsSync(join(dist, 'metafile-cjs.json'))) {
  console.error('check-dist: dist/metafile-esm.json or dist/metafile-cjs.json not found; run `npm run build` first');
  process.exit(2);
}

/** Dependencies that may be bundled (at most once per format); zod never is. */
const BUNDLED_AT_MOST_ONCE = ['jose', 'ky'];
const NEVER_BUNDLED = ['zod'];
/** A string each dependency's code holds and the SDK's own never does (its `instanceof`-relevant base class or a code). */
const MARKERS = { zod: /\$ZodType\b/, jose: /ERR_JOSE_GENERIC/, ky: /\bclass KyError\b/ };

const failures = [];
const packageOf = (input) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];

for (const format of ['esm', 'cjs']) {
  const { outputs } = JSON.parse(readFileSync(join(dist, `metafile-${format}.json`), 'utf8'));
  // every input (a module of the SDK or of a dependency) and the output files that hold code of it
  const filesOf = new Map();
  for (const [output, { inputs }] of Object.entries(outputs)) {
    if (output.endsWith('.map')) continue;
    for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
      if (bytesInOutput === 0) continue;
      filesOf.set(input, [...(filesOf.get(input) ?? []), output]);
    }
  }
  const bundled = new Map();
  for (const [input, files] of filesOf) {
    const pkg = packageOf(input);
    if (pkg !== undefined) bundled.set(pkg, new Set([...(bundled.get(pkg) ?? []), ...files]));
    if (pkg !== undefined && NEVER_BUNDLED.includes(pkg)) failures.push(`${format}: ${input} is bundled into ${files.join(', ')}`);
    else if (files.length > 1) failures.push(`${format}: ${input} is in ${files.length} files: ${files.join(', ')}`);
  }
  for (const pkg of bundled.keys()) {
    if (!BUNDLED_AT_MOST_ONCE.includes(pkg) && !NEVER_BUNDLED.includes(pkg)) {
      failures.push(`${format}: ${pkg} is bundled; add it to check-dist.mjs's list if it must be (an ESM-only dependency)`);
    }
  }
  if (format === 'esm' && bundled.size > 0)
    failures.push(`esm: bundles ${[...bundled.keys()].join(', ')}; the ESM build bundles no dependency`);
  const summary = [...bundled].map(([pkg, files]) => `${pkg} in ${files.size} file(s)`).join(', ') || 'no dependency';
  console.log(`check-dist: ${format}: ${Object.keys(outputs).length} files, ${filesOf.size} modules each in one file; bundled: ${summary}`);
}

// the files themselves, whatever the record says
const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : /\.c?js$/.test(entry.name) ? [join(dir, entry.name)] : [],
  );
const byFormat = { esm: [], cjs: [] };
for (const file of files(dist)) byFormat[file.endsWith('.cjs') ? 'cjs' : 'esm'].push(file);
for (const [format, list] of Object.entries(byFormat)) {
  const texts = list.map((file) => [relative(root, file), readFileSync(file, 'utf8')]);
  for (const [file, text] of texts) {
    for (const { line, comment } of misplacedAnnotations(text)) {
      failures.push(`${file}:${line}: a comment carries an annotation where no bundler can use it: ${comment.slice(0, 120)}`);
    }
  }
  for (const [pkg, marker] of Object.entries(MARKERS)) {
    const holding = texts.filter(([, text]) => marker.test(text)).map(([file]) => file);
    const most = NEVER_BUNDLED.includes(pkg) ? 0 : 1;
    if (holding.length > most) failures.push(`${format}: ${pkg}'s code (${marker}) is in ${holding.length} files: ${holding.join(', ')}`);
  }
  for (const [file, text] of texts) {
    if (/\bdevDependencies\b/.test(text))
      failures.push(`${format}: ${file} holds package.json (its devDependencies); import only \`version\``);
  }
}

if (failures.length > 0) {
  console.error(`check-dist: FAIL:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(
  'check-dist: ok: no zod in dist/, nothing bundled into the ESM build, no package.json beyond its version; every bundled module, jose and ky included, in at most one file per format; no misplaced annotation',
);
