import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Words as `wc -w` counts them (code blocks and tables included). The path is what a partner reads
// to integrate the client, webhooks, the tracker on PostgreSQL and a test suite, in this order;
// every other page of docs/ is reference. A topic that outgrows its page moves to a reference page, linked.
const PATH = ['README.md', 'docs/tracker.md', 'docs/webhooks.md', 'docs/postgres.md', 'docs/testing.md'] as const;
const PATH_LIMIT_WORDS = 8_000;
const DOCS_LIMIT_WORDS = 16_000;
const root = join(import.meta.dirname, '..', '..');

/** The words of a text as `wc -w` counts them: runs of characters between whitespace. */
const wordsOf = (text: string): number => text.split(/\s+/).filter((token) => token !== '').length;

/** Each page with its words, and their sum, as a message that names them. */
function count(pages: readonly string[]): { total: number; each: string; empty: string[] } {
  const counts = pages.map((page) => [page, wordsOf(readFileSync(join(root, page), 'utf8'))] as const);
  return {
    total: counts.reduce((sum, [, words]) => sum + words, 0),
    each: counts.map(([page, words]) => `${page} ${words}`).join(', '),
    empty: counts.filter(([, words]) => words === 0).map(([page]) => page),
  };
}

describe('the words a partner reads', () => {
  it('counts words as wc -w does', () => {
    expect(wordsOf('')).toBe(0);
    expect(wordsOf('  \n\t ')).toBe(0);
    expect(wordsOf('## Read a status\n\n```ts\nconst x = 1;\n```\n')).toBe(10);
    expect(wordsOf('a b\tc—d\r\ne')).toBe(4);
  });

  it(`the path (${PATH.join(', ')}) is at most ${PATH_LIMIT_WORDS} words together`, () => {
    const { total, each, empty } = count(PATH);
    expect(empty).toEqual([]);
    expect(total, `${total} words: ${each}`).toBeLessThanOrEqual(PATH_LIMIT_WORDS);
  });

  it(`docs/ is at most ${DOCS_LIMIT_WORDS} words in all`, () => {
    const pages = readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`);
    expect(pages.length).toBeGreaterThan(5);
    const { total, each } = count(pages);
    expect(total, `${total} words: ${each}`).toBeLessThanOrEqual(DOCS_LIMIT_WORDS);
  });
});
