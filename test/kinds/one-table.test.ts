import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escaped, KINDS } from '../helpers/kinds.js';

// Issue 31: what differs by record kind is read from one table (src/kinds.ts, and src/event-types.ts
// for event types). Outside them no code names a kind as a string: a literal kind name is a
// hand-kept copy that a new kind would silently miss. The exceptions below are 1.1 names that keep
// their own kind (the per-kind members themselves are made from the table).

const SRC = new URL('../../src/', import.meta.url).pathname;
const TABLES = new Set(['kinds.ts', 'event-types.ts']);
/** file → how many lines of code name a kind as a string literal, and why that is no kind list. */
const EXCEPTIONS: Record<string, { lines: number; why: string }> = {
  'tracker/types.ts': { lines: 2, why: 'OrderStatusChange and WithdrawalStatusChange, the 1.1 per-kind types' },
  'cli/commands/watch.ts': { lines: 2, why: 'the CLI flag --withdrawal, and order as the default kind' },
  'cli/args.ts': { lines: 2, why: 'the CLI flag --withdrawal, kept as --kind withdrawal' },
  'testing/service.ts': {
    lines: 3,
    why: "the fake's settleOrder, cancelOrder and completeWithdrawal: a kind's own events, not a name pattern",
  },
};

/** Every .ts file under src/, relative to it. */
function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [relative(SRC, join(dir, entry.name))] : [],
  );
}

const KIND_LITERAL = new RegExp(`(['"\`])(${KINDS.map(escaped).join('|')})\\1`);

/** The lines of code (comments left out) that hold a kind as a string literal. */
function kindLiterals(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ''));
  return code
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, ''))
    .filter((line) => KIND_LITERAL.test(line));
}

describe('one table of record kinds', () => {
  it('no code outside the tables names a kind as a string, but the documented exceptions', () => {
    const found: Record<string, number> = {};
    for (const file of sources()) {
      if (TABLES.has(file)) continue;
      const lines = kindLiterals(readFileSync(join(SRC, file), 'utf8'));
      if (lines.length > 0) found[file] = lines.length;
    }
    expect(found).toEqual(Object.fromEntries(Object.entries(EXCEPTIONS).map(([file, { lines }]) => [file, lines])));
  });

  it('finds the copies it is meant to find, and not the comments', () => {
    expect(kindLiterals(`const kind = change.kind === 'order' ? a : b;`)).toHaveLength(1);
    expect(kindLiterals(`if (kind !== "withdrawal") return;`)).toHaveLength(1);
    expect(kindLiterals(`// kind === 'order'\n/** 'withdrawal' */\nconst x = 1;`)).toHaveLength(0);
  });

  it('the SQL the stores create pins no kind', () => {
    for (const file of sources().filter((name) => name.startsWith('postgres/'))) {
      expect(kindLiterals(readFileSync(join(SRC, file), 'utf8')), file).toEqual([]);
    }
  });
});
