import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// What a partner reads to integrate: the README, then the tracker and webhooks pages. Together at
// most 6,000 words, counted as `wc -w` counts them (code blocks and tables included); a topic that
// outgrows them moves to its own page, linked.
const PAGES = ['README.md', 'docs/tracker.md', 'docs/webhooks.md'] as const;
const LIMIT_WORDS = 6_000;
const root = join(import.meta.dirname, '..', '..');

/** The words of a text as `wc -w` counts them: runs of characters between whitespace. */
const wordsOf = (text: string): number => text.split(/\s+/).filter((token) => token !== '').length;

describe("a partner's path in words", () => {
  it('counts words as wc -w does', () => {
    expect(wordsOf('')).toBe(0);
    expect(wordsOf('  \n\t ')).toBe(0);
    expect(wordsOf('## Read a status\n\n```ts\nconst x = 1;\n```\n')).toBe(10);
    expect(wordsOf('a b\tc—d\r\ne')).toBe(4);
  });

  it(`README.md, docs/tracker.md and docs/webhooks.md are at most ${LIMIT_WORDS} words together`, () => {
    const counts = PAGES.map((page) => [page, wordsOf(readFileSync(join(root, page), 'utf8'))] as const);
    const total = counts.reduce((sum, [, words]) => sum + words, 0);
    const each = counts.map(([page, words]) => `${page} ${words}`).join(', ');
    expect(counts.every(([, words]) => words > 0)).toBe(true);
    expect(total, `${total} words: ${each}`).toBeLessThanOrEqual(LIMIT_WORDS);
  });
});
