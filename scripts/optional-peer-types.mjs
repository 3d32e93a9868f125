#!/usr/bin/env node
// Run after tsup. `fake.handlers()` returns msw's `HttpHandler[]`, but msw is an optional peer: in a
// project without msw, `import { HttpHandler } from 'msw'` in dist/testing.d.ts would fail its type
// check under `skipLibCheck: false` (TS2307). A `@ts-ignore` on that import (the d.ts bundler drops
// comments from the source) makes the type `any` there and msw's own type wherever msw is installed.
// dist/testing/msw.* keeps its plain import: that entry requires msw.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dist = resolve(import.meta.dirname, '..', 'dist');
const mswImport = /^(import (?:(?:type )?\{[^}]*\} from )?['"]msw['"];)$/gm;
const marked = [];
for (const file of readdirSync(dist).filter((name) => /\.d\.c?ts$/.test(name))) {
  const path = join(dist, file);
  const text = readFileSync(path, 'utf8');
  const next = text.replace(mswImport, '// @ts-ignore -- msw is an optional peer dependency (npm install --save-dev msw)\n$1');
  if (next !== text) {
    writeFileSync(path, next);
    marked.push(file);
  }
}
if (marked.length === 0) throw new Error('optional-peer-types: no msw import found in dist/*.d.ts');
console.log(`optional-peer-types: marked the msw import optional in ${marked.join(', ')}`);
