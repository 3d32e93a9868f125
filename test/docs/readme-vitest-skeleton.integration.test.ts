import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The vitest skeleton docs/testing.md shows partners is examples/testing/webhook-receiver.test.ts,
// which the suite runs (vitest.config.ts includes examples/**/*.test.ts) and tsc type-checks: the
// docs block must be that file, character for character.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe("docs/testing.md's vitest skeleton", () => {
  it('is examples/testing/webhook-receiver.test.ts as run by the suite', () => {
    const readme = readFileSync(join(root, 'docs', 'testing.md'), 'utf8');
    const file = readFileSync(join(root, 'examples', 'testing', 'webhook-receiver.test.ts'), 'utf8').trimEnd();
    expect(readme).toContain('```ts\n' + file + '\n```\n');
    const config = readFileSync(join(root, 'vitest.config.ts'), 'utf8');
    expect(config).toContain("'examples/**/*.test.ts'");
  });
});
