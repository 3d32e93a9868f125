import { readFileSync } from 'node:fs';
import ts from 'typescript';
import type { StatusKind } from 'checkout-partner-sdk';
import { expect } from 'vitest';

// The record kinds as the kinds table declares them (the keys of `KindRecords` in src/kinds.ts), so
// that no test lists them by hand: a kind added to the table is expected in every message at once.

const TABLE = new URL('../../src/kinds.ts', import.meta.url);

function tableKinds(): StatusKind[] {
  const source = ts.createSourceFile(TABLE.pathname, readFileSync(TABLE, 'utf8'), ts.ScriptTarget.Latest);
  const records = source.statements.find(
    (statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === 'KindRecords',
  );
  const names = records?.members.flatMap((member) => (member.name !== undefined && ts.isIdentifier(member.name) ? [member.name.text] : []));
  if (names === undefined || names.length === 0) throw new Error('src/kinds.ts declares no KindRecords: where did the kinds table go?');
  return names as StatusKind[];
}

/** Every kind of the table, in its order. */
export const KINDS: readonly StatusKind[] = tableKinds();

/** A kind's name as its own members spell it: `Order` in `getOrderByExternalId`. */
export const capitalized = (kind: string): string => `${kind.charAt(0).toUpperCase()}${kind.slice(1)}`;

/** `text` with the characters a RegExp reads as syntax escaped. */
export const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Asserts that `message` names every kind of the table (each in double quotes with `quoted`). */
export function expectEveryKind(message: string, { quoted = false } = {}): void {
  for (const kind of KINDS) expect(message).toContain(quoted ? `"${kind}"` : kind);
}

/** What `act` throws, for a look at its message. */
export function thrown(act: () => unknown): Error {
  try {
    act();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}
