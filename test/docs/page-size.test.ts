import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

// A page a partner reads end to end: none over 20 KB (split by the decision it helps make instead).
const LIMIT_BYTES = 20 * 1024;
const docs = join(import.meta.dirname, '../../docs');

it('no page of docs/ is over 20 KB', () => {
  const pages = readdirSync(docs).filter((name) => name.endsWith('.md'));
  expect(pages.length).toBeGreaterThan(5);
  const over = pages.map((name) => [name, statSync(join(docs, name)).size] as const).filter(([, size]) => size > LIMIT_BYTES);
  expect(over).toEqual([]);
});
