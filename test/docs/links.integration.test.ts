import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linesOf, markdownFiles, root } from './markdown-files.js';

// Every relative link in README.md, CONTRIBUTING.md and docs/*.md must point to a file of the
// repository, and a `#fragment` into a markdown file to one of its headings (GitHub's anchors).

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a markdown file's headings (outside code fences), duplicates numbered as GitHub does. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of linesOf(file)) {
    if (line.startsWith('```')) fence = !fence;
    const heading = fence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = anchorOf(heading[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Link {
  file: string;
  line: number;
  target: string;
}
const links: Link[] = [];
for (const file of markdownFiles) {
  let fence = false;
  linesOf(file).forEach((text, index) => {
    if (text.startsWith('```')) fence = !fence;
    if (fence) return;
    // inline code is not a link: drop it before looking for ](target)
    for (const match of text.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …: not a file of the repository
      links.push({ file, line: index + 1, target });
    }
  });
}

/** Why a link does not resolve, or undefined when it does. */
function brokenBecause(link: Link): string | undefined {
  const [path = '', fragment] = link.target.split('#', 2);
  const target = path === '' ? link.file : normalize(join(dirname(link.file), decodeURIComponent(path)));
  if (target.startsWith('..')) return `${target} is outside the repository`;
  const absolute = join(root, target);
  if (!existsSync(absolute)) return `${target} does not exist`;
  if (fragment === undefined || fragment === '') return undefined;
  if (!target.endsWith('.md') || statSync(absolute).isDirectory())
    return `#${fragment} points into ${target}, which is not a markdown file`;
  return anchorsOf(target).has(fragment) ? undefined : `${target} has no heading #${fragment}`;
}

describe('relative links in README.md, CONTRIBUTING.md and docs/*.md', () => {
  it('finds links to check', () => {
    expect(links.filter((link) => link.file === 'README.md').length).toBeGreaterThan(10);
  });

  it.each(links.map((link) => [`${link.file}:${link.line}`, link.target, link] as const))('%s → %s resolves', (at, _target, link) => {
    expect(brokenBecause(link), at).toBeUndefined();
  });

  it('reads headings as GitHub anchors them', () => {
    expect(anchorOf("Track an order's status")).toBe('track-an-orders-status');
    expect(anchorOf('Exactly-once effects with PostgreSQL')).toBe('exactly-once-effects-with-postgresql');
    expect(anchorOf('Testing kit (`checkout-partner-sdk/testing`) and the demo')).toBe(
      'testing-kit-checkout-partner-sdktesting-and-the-demo',
    );
  });
});
