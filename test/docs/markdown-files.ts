import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The prose partners and contributors read, as paths from the root: README.md, CONTRIBUTING.md and
 * every `docs/*.md` (a new page there is checked without being listed here).
 */
export const markdownFiles: readonly string[] = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The lines of a markdown file, by its path from the root. */
export const linesOf = (file: string): string[] => readFileSync(join(root, file), 'utf8').split('\n');
