import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linesOf, markdownFiles, root } from './markdown-files.js';

// A sample lives in one file; a page that shows part of it marks the block `<!-- excerpt: <file> -->`
// on the line before the fence, and the block must be that file's text, unchanged (the file itself is
// type-checked and, for examples/shutdown/, run by test/examples/shutdown*.ts).

const excerpts: { where: string; file: string; code: string }[] = [];
for (const doc of markdownFiles) {
  const lines = linesOf(doc);
  for (let i = 1; i < lines.length; i++) {
    const marker = /^<!-- excerpt: (\S+) -->$/.exec(lines[i - 1] ?? '');
    if (marker === null) continue;
    expect(lines[i], `${doc}:${i + 1}: an excerpt marker must sit right above a \`\`\`ts fence`).toBe('```ts');
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++;
    excerpts.push({ where: `${doc}:${i + 2}`, file: marker[1] ?? '', code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
}

describe('every excerpt in the docs is its file, unchanged', () => {
  it('there are excerpts to check', () => {
    expect(excerpts.length).toBeGreaterThan(0);
  });

  for (const excerpt of excerpts) {
    it(`${excerpt.where} (${excerpt.file})`, () => {
      const path = join(root, excerpt.file);
      expect(existsSync(path), `${excerpt.file} not found`).toBe(true);
      expect(excerpt.code.trim()).not.toBe('');
      expect(readFileSync(path, 'utf8').includes(`${excerpt.code}\n`)).toBe(true);
    });
  }
});
