import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every performance figure in the docs is rendered from bench/results.json (scripts/bench-docs.mjs):
// a doc whose marked blocks differ from what the results render fails here and in CI.
interface BenchDocs {
  DOCS: string[];
  render(text: string, bench: unknown, file?: string): string;
  readResults(): { results: { reads: { sequential: { sdk: { cpuVsRawFetch: number } } } } };
}
const script = join(import.meta.dirname, '../../scripts/bench-docs.mjs');
const { DOCS, render, readResults } = (await import(script)) as BenchDocs;
const root = join(import.meta.dirname, '../..');

describe('docs figures come from bench/results.json', () => {
  it.each(DOCS)('%s: every bench block is what the results render', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    expect(text).toContain('<!-- bench:');
    expect(render(text, readResults(), file)).toBe(text);
  });

  it('a figure that no longer matches the results is caught', () => {
    const text = readFileSync(join(root, 'docs/performance.md'), 'utf8');
    const bench = readResults();
    bench.results.reads.sequential.sdk.cpuVsRawFetch += 0.5;
    expect(render(text, bench)).not.toBe(text);
  });

  it('an unknown block is an error, not a silently kept figure', () => {
    expect(() => render('<!-- bench:nope -->1.17x<!-- /bench -->', readResults(), 'x.md')).toThrow(/unknown bench block "nope"/);
  });
});
