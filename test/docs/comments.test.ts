import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// No comment in src/ states a measured figure or cites a file outside the repository
// (scripts/check-comments.mjs, run in CI): figures live in the bench and docs/performance.md.
interface CheckComments {
  commentFindings(text: string): [rule: string, excerpt: string][];
  comments(source: string): { line: number; text: string }[];
  check(): { file: string; line: number; rule: string; excerpt: string }[];
}
const script = join(import.meta.dirname, '../../scripts/check-comments.mjs');
const { commentFindings, comments, check } = (await import(script)) as CheckComments;

describe('comments say what and why, without figures or outside files', () => {
  it('src/ has none', () => {
    expect(check()).toEqual([]);
  });

  it.each([
    ["// about 4% of a status read's CPU, A/B in one process", 'a comparison run'],
    ['/** costs the main entry 0.6 KB gzip for this one field */', 'a measured size'],
    ['// which made each write cost ~100 µs', 'a measured time'],
    ['// (measured on loopback: 19 requests reached the server)', 'a measurement'],
    ['/* several times faster than Web Crypto */', 'a speed-up'],
    ['// see API.md "Load control"', 'a file outside the repository'],
    ['// as ../shared/spec/checkout-service.md says', 'a file outside the repository'],
    ['// see NOTES.md', 'a file outside the repository'],
  ])('flags %s', (comment, rule) => {
    expect(commentFindings(comment).map(([name]) => name)).toContain(rule);
  });

  it.each([
    '// a margin of 10% of `leaseMs`, at most 5 s',
    '/** @default 1_048_576 (1 MiB) */',
    "// ages are measured from it, on the store's clock",
    '// see docs/tracker.md and CONTRIBUTING.md',
    '// Buckets from 10 ms to 10 min',
  ])('leaves ordinary prose alone: %s', (comment) => {
    expect(commentFindings(comment)).toEqual([]);
  });

  it('reads comments only: not strings, templates or regular expressions', () => {
    const source = [
      'const a = `x${ { b: 1 }.b } // 4 µs in a template`; // one',
      "const s = '/* 3 KB in a string */';",
      'const r = /\\/\\/ 2 µs in a regex/u; /* two */',
      'const d = a.length / 2; // three',
    ].join('\n');
    expect(comments(source)).toEqual([
      { line: 1, text: '// one' },
      { line: 3, text: '/* two */' },
      { line: 4, text: '// three' },
    ]);
  });
});
