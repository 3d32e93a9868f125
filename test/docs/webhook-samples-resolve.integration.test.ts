import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { linesOf, markdownFiles } from './markdown-files.js';

// A webhook handler without resolveOrderExternalId or resolveWithdrawalExternalId reads nothing, so
// `confirmed` is always false and a sample's `if (confirmed) …` never runs. Every createWebhookHandler
// call written out in README.md, docs/*.md and examples/ names a resolver (or spreads options it is given).
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function readmeBlocks(): { where: string; code: string }[] {
  const blocks: { where: string; code: string }[] = [];
  for (const file of markdownFiles) {
    const lines = linesOf(file);
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(ts|typescript)\s*$/.test(lines[i] ?? '')) continue;
      let end = i + 1;
      while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++;
      blocks.push({ where: `${file}:${i + 2}`, code: lines.slice(i + 1, end).join('\n') });
      i = end;
    }
  }
  return blocks;
}

function exampleFiles(dir = join(root, 'examples')): { where: string; code: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return exampleFiles(path);
    return /\.tsx?$/.test(entry.name) ? [{ where: relative(root, path), code: readFileSync(path, 'utf8') }] : [];
  });
}

/** The option names of every `createWebhookHandler({ … })` call written as an object literal. */
function handlerCalls(code: string): { line: number; names: string[]; spreads: boolean }[] {
  const source = ts.createSourceFile('sample.ts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const calls: { line: number; names: string[]; spreads: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'createWebhookHandler') {
      const [options] = node.arguments;
      if (options !== undefined && ts.isObjectLiteralExpression(options)) {
        calls.push({
          line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          names: options.properties.flatMap((property) =>
            property.name !== undefined && ts.isIdentifier(property.name) ? [property.name.text] : [],
          ),
          spreads: options.properties.some(ts.isSpreadAssignment),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return calls;
}

describe('webhook samples can confirm what they handle', () => {
  const samples = [...readmeBlocks(), ...exampleFiles()].flatMap(({ where, code }) =>
    handlerCalls(code).map((call) => ({ where: `${where} (+${call.line - 1})`, ...call })),
  );

  it('finds the samples (README, docs/ and examples/)', () => {
    expect(samples.filter((sample) => sample.where.startsWith('README.md')).length).toBeGreaterThanOrEqual(2);
    expect(samples.filter((sample) => sample.where.startsWith('docs/')).length).toBeGreaterThanOrEqual(3);
    expect(samples.filter((sample) => sample.where.startsWith('examples')).length).toBeGreaterThanOrEqual(2);
  });

  it('each names resolveOrderExternalId or resolveWithdrawalExternalId', () => {
    const missing = samples.filter(
      (sample) =>
        !sample.spreads && !sample.names.some((name) => name === 'resolveOrderExternalId' || name === 'resolveWithdrawalExternalId'),
    );
    expect(missing.map((sample) => sample.where)).toEqual([]);
  });

  // One place to fulfil: a handler given a tracker leaves fulfilment to the tracker's onChange, so no
  // sample gives it an onEvent too (a partner copying it would fulfil each paid order twice).
  it('none given a tracker has an onEvent', () => {
    const withTracker = samples.filter((sample) => sample.names.includes('tracker'));
    expect(withTracker.length).toBeGreaterThanOrEqual(2);
    const both = withTracker.filter((sample) => sample.names.includes('onEvent'));
    expect(both.map((sample) => sample.where)).toEqual([]);
  });
});
