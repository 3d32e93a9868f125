import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

// Every ```ts block of README.md is type-checked as a standalone ES module against the package (its
// entry points mapped to src/ by tsconfig.json's paths), the way a partner's `nodenext` project would
// compile it: import what you use, `declare` what you assume, no top-level `return`.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8').split('\n');

interface Block {
  /** README.md line of the block's first code line (the line after the fence). */
  line: number;
  code: string;
}
const blocks: Block[] = [];
for (let i = 0; i < readme.length; i++) {
  if (!/^```(ts|typescript)\s*$/.test(readme[i] ?? '')) continue;
  const start = i + 1;
  let end = start;
  while (end < readme.length && !/^```\s*$/.test(readme[end] ?? '')) end++;
  blocks.push({ line: start + 1, code: readme.slice(start, end).join('\n') });
  i = end;
}
const fileOf = (block: Block) => join(root, 'test', 'docs', '.readme', `README-line-${block.line}.ts`);

let errorsByFile: Map<string, string[]>;

beforeAll(() => {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const options: ts.CompilerOptions = { ...parsed.options, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true };
  // `export {}` keeps a block without imports a module, so blocks never share a global scope
  const virtual = new Map(blocks.map((block) => [fileOf(block), `${block.code}\nexport {};\n`]));
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
  for (const file of virtual.keys()) {
    const source = program.getSourceFile(file);
    if (source === undefined) throw new Error(`the README block ${file} did not load`);
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    errorsByFile.set(
      file,
      diagnostics.map((d) => {
        const at = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
        const block = blocks.find((b) => fileOf(b) === file);
        return `README.md:${(block?.line ?? 0) + at}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      }),
    );
  }
}, 120_000);

describe('README.md code samples', () => {
  it('has ts blocks to check', () => {
    expect(blocks.length).toBeGreaterThan(10);
  });

  it.each(blocks.map((block) => [block.line, block] as const))('the ts block at README.md line %i type-checks', (_line, block) => {
    expect(errorsByFile.get(fileOf(block)), `README.md line ${block.line}`).toEqual([]);
  });
});
