import { describe, expect, it } from 'vitest';
import { misplacedAnnotations } from '../../scripts/annotations.js';

// scripts/check-dist.mjs fails on a comment of dist/ that carries a bundler annotation where no
// bundler can use it: Rollup (so Vite 7's SSR build) warns on each, naming the SDK's file.

describe('misplacedAnnotations', () => {
  it('passes the annotations esbuild writes: right before a call or a new', () => {
    const built = [
      'var BRAND = /* @__PURE__ */ Symbol.for("sdk");',
      'var said = /* @__PURE__ */ new Set();',
      'const now = (/* @__PURE__ */ new Date()).getUTCFullYear();',
      'var __require = /* @__PURE__ */ ((x) => typeof require !== "undefined" ? require : x)(function (x) { return x; });',
      'var ok = /* #__PURE__ */ make();',
      '/* @__NO_SIDE_EFFECTS__ */ function pure() { return 1; }',
      '/* @__NO_SIDE_EFFECTS__ */ export const arrow = () => 1;',
    ].join('\n');
    expect(misplacedAnnotations(built)).toEqual([]);
  });

  it('finds a comment that mentions an annotation in prose, or sits before no call', () => {
    const built = [
      'var a = 1; // the bundler reads @__PURE__ here',
      '/* keeps the call: no @__PURE__ on it */',
      'var b = f();',
      'var c = /* @__PURE__ */ value;',
      '/*! legal text with #__PURE__ */',
      'var d = /* @__PURE__ */',
      '  1 + g();',
      '/* @__NO_SIDE_EFFECTS__ */ a = 2;',
    ].join('\n');
    expect(misplacedAnnotations(built)).toEqual([
      { line: 1, comment: '// the bundler reads @__PURE__ here' },
      { line: 2, comment: '/* keeps the call: no @__PURE__ on it */' },
      { line: 4, comment: '/* @__PURE__ */' },
      { line: 5, comment: '/*! legal text with #__PURE__ */' },
      { line: 6, comment: '/* @__PURE__ */' },
      { line: 8, comment: '/* @__NO_SIDE_EFFECTS__ */' },
    ]);
  });

  it('reads strings, templates and regular expressions as code, never as comments', () => {
    const built = [
      'var s = "/* @__PURE__ */ text";',
      'var t = `// @__PURE__ ${s}`;',
      'var r = /\\/\\* @__PURE__ \\*\\//;',
      'var u = a / b; /* @__PURE__ */ new Map();',
    ].join('\n');
    expect(misplacedAnnotations(built)).toEqual([]);
  });

  it('nothing to parse when no annotation is mentioned', () => {
    expect(misplacedAnnotations('var x = /* a comment */ 1;')).toEqual([]);
  });
});
