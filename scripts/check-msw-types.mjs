#!/usr/bin/env node
// Run after tsup. msw is an optional peer, and msw 3's own declarations do not resolve under
// `module: commonjs` (node10 resolution: TS2307 on '@mswjs/interceptors/WebSocket'). So only the
// `checkout-partner-sdk/testing/msw` entry, which requires msw, may reference msw in its
// declarations: every other declaration file (`/testing` and the chunks it shares) must not, or
// a project that only imports `/testing` would fail its type check. This fails the build if one does.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const dist = resolve(import.meta.dirname, '..', 'dist');
const mswEntry = /^testing\/msw\.d\.c?ts$/;
const mswReference = /(?:from\s+|import\s*\(\s*|import\s+|reference\s+types=)['"]msw(?:\/[^'"]*)?['"]/;

/** A declaration file's code, without its comments (TSDoc examples mention 'msw/node'). */
const code = (file) =>
  readFileSync(join(dist, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/(?!\/ <reference).*$/gm, '');

function declarations(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return declarations(path);
    return /\.d\.c?ts$/.test(name) ? [path] : [];
  });
}

const files = declarations(dist).map((path) => relative(dist, path).split('\\').join('/'));
const offending = files.filter((file) => !mswEntry.test(file) && mswReference.test(code(file)));
if (offending.length > 0) {
  throw new Error(`check-msw-types: msw's types are referenced outside the testing/msw entry, in ${offending.join(', ')}`);
}
const entries = files.filter((file) => mswEntry.test(file));
if (entries.length !== 2 || !entries.every((file) => mswReference.test(code(file)))) {
  throw new Error(`check-msw-types: expected dist/testing/msw.d.ts and .d.cts to import msw, found ${entries.join(', ') || 'neither'}`);
}
console.log(`check-msw-types: msw's types only in ${entries.join(' and ')} (${files.length} declaration files checked)`);
