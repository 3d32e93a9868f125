import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { linesOf, markdownFiles, root } from './markdown-files.js';

// Every ```ts block of README.md, CONTRIBUTING.md and docs/*.md (but an excerpt of an example file)
// is type-checked as a standalone ES module against the package (its entry points mapped to src/ by tsconfig.json's paths), the way a
// partner's `nodenext` project would compile it: import what you use, `declare` what you assume, no
// top-level `return`.

interface Block {
  /** The markdown file, from the repository root. */
  file: string;
  /** The file's line of the block's first code line (the line after the fence). */
  line: number;
  code: string;
}
const blocks: Block[] = [];
for (const file of markdownFiles) {
  const lines = linesOf(file);
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i] ?? '')) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++;
    // an excerpt of an example file (`<!-- excerpt: examples/... -->` above it) is checked to equal
    // part of that file, which the project's typecheck covers (test/examples/shutdown*.ts)
    if (!/^<!-- excerpt: \S+ -->$/.test(lines[i - 1] ?? ''))
      blocks.push({ file, line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
}
const where = (block: Block) => `${block.file}:${block.line}`;
const fileOf = (block: Block) => join(root, 'test', 'docs', '.readme', `${block.file.replace(/[^\w]/g, '_')}-line-${block.line}.ts`);

// A block importing an entry point package.json does not export yet (documented ahead of a branch that
// adds it) is skipped, by name in the test list, and checked as soon as the entry is exported.
const exported = new Set(
  Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports),
);
const missingEntry = (block: Block): string | undefined =>
  [...block.code.matchAll(/from '(checkout-partner-sdk(?:\/[^']+)?)'/g)]
    .map((match) => match[1] ?? '')
    .find((specifier) => !exported.has(`.${specifier.slice('checkout-partner-sdk'.length)}`));
const checked = blocks.filter((block) => missingEntry(block) === undefined);
const pending = blocks.filter((block) => missingEntry(block) !== undefined);

let errorsByFile: Map<string, string[]>;

beforeAll(() => {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
  };
  // `export {}` keeps a block without imports a module, so blocks never share a global scope
  const virtual = new Map(checked.map((block) => [fileOf(block), `${block.code}\nexport {};\n`]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const text = virtual.get(file);
    return text === undefined ? getSourceFile.call(host, file, language, ...rest) : ts.createSourceFile(file, text, language);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  errorsByFile = new Map();
  for (const block of checked) {
    const source = program.getSourceFile(fileOf(block));
    if (source === undefined) throw new Error(`the block at ${where(block)} did not load`);
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    errorsByFile.set(
      fileOf(block),
      diagnostics.map((d) => {
        const at = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
        return `${block.file}:${block.line + at}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      }),
    );
  }
}, 120_000);

describe('code samples in README.md, CONTRIBUTING.md and docs/*.md', () => {
  it('has ts blocks to check in the README and in docs/', () => {
    expect(blocks.filter((block) => block.file === 'README.md').length).toBeGreaterThanOrEqual(3);
    expect(checked.filter((block) => block.file.startsWith('docs/')).length).toBeGreaterThan(10);
  });

  it.each(checked.map((block) => [where(block), block] as const))('the ts block at %s type-checks', (_where, block) => {
    expect(errorsByFile.get(fileOf(block)), where(block)).toEqual([]);
  });

  it.skip.each(pending.map((block) => [where(block), missingEntry(block)] as const))(
    'the ts block at %s waits for package.json to export %s',
    () => {},
  );
});
