import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linesOf, markdownFiles, root } from './markdown-files.js';

// A version range of the package the docs advise (`~1.0.0`, `checkout-partner-sdk@^1.2`) is this
// release's major.minor, from package.json, never one written down a release ago.
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const current = version.split('.').slice(0, 2).join('.');

/**
 * The major.minor of each range of this package a line names: `checkout-partner-sdk@1.2.3`, or a
 * bare `~1.0.0` / `^1.2`; a range written after another package's name (`zod@^4`, `"pg": "^8.11"`)
 * is that package's.
 */
const rangesIn = (line: string): string[] =>
  [...line.matchAll(/(?:([@\w/.-]+)(?:@|"\s*:\s*"))?([~^]?)v?(\d+)\.(\d+)(?:\.\d+)?/g)]
    .filter(([, name, prefix]) => (name === undefined ? prefix !== '' : name === 'checkout-partner-sdk'))
    .map(([, , , major, minor]) => `${major}.${minor}`);

describe('version ranges of checkout-partner-sdk in README.md, CONTRIBUTING.md and docs/*.md', () => {
  it('reads ranges as partners copy them', () => {
    expect(rangesIn('pin `~1.0.0` to take fixes only')).toEqual(['1.0']);
    expect(rangesIn('npm install checkout-partner-sdk@1.2.3 zod@^4.1')).toEqual(['1.2']);
    expect(rangesIn('"checkout-partner-sdk": "^1.1.0", "pg": "^8.11"')).toEqual(['1.1']);
    expect(rangesIn('from 1.0.0 on, Node 24.21.0, 127.0.0.1')).toEqual([]);
  });

  it(`each is ${current}, package.json's major.minor (${version})`, () => {
    const stale = markdownFiles.flatMap((file) =>
      linesOf(file).flatMap((line, index) =>
        rangesIn(line)
          .filter((range) => range !== current)
          .map((range) => `${file}:${index + 1}: ${range}`),
      ),
    );
    expect(stale).toEqual([]);
  });
});
