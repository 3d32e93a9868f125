import { resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { describeForgotten, findForgottenExports, type EntryFile } from '../../scripts/check-exports.js';

// The sources of the entries package.json exports (scripts/check-exports.ts checks the built
// declarations the same way in CI, after `npm run build`).
const ENTRIES: EntryFile[] = [
  { entry: 'checkout-partner-sdk', file: 'src/index.ts' },
  { entry: 'checkout-partner-sdk/webhooks', file: 'src/webhooks/index.ts' },
  { entry: 'checkout-partner-sdk/webhooks (node)', file: 'src/webhooks/index.node.ts' },
  { entry: 'checkout-partner-sdk/redis', file: 'src/redis/index.ts' },
  { entry: 'checkout-partner-sdk/postgres', file: 'src/postgres/index.ts' },
  { entry: 'checkout-partner-sdk/tracker', file: 'src/tracker/index.ts' },
  { entry: 'checkout-partner-sdk/stores', file: 'src/stores/index.ts' },
  { entry: 'checkout-partner-sdk/testing', file: 'src/testing/index.ts' },
  { entry: 'checkout-partner-sdk/testing/msw', file: 'src/testing/msw.ts' },
].map(({ entry, file }) => ({ entry, file: resolve(file) }));

const src = resolve('src') + sep;
const isOwn = (fileName: string): boolean => resolve(fileName).startsWith(src);

function program(rootNames: readonly string[], files: Record<string, string> = {}): ts.Program {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2024.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    const text = files[resolve(name)];
    return text === undefined ? getSourceFile(name, version, ...rest) : ts.createSourceFile(name, text, version);
  };
  host.fileExists = (name) => resolve(name) in files || fileExists(name);
  // the probe's directory exists only here
  host.directoryExists = (name) => Object.keys(files).some((file) => file.startsWith(resolve(name) + sep)) || ts.sys.directoryExists(name);
  return ts.createProgram([...rootNames, ...Object.keys(files)], options, host);
}

describe('no forgotten export', () => {
  it('every named type a public signature uses is exported by an entry of the package', { timeout: 120_000 }, () => {
    const forgotten = findForgottenExports(program(ENTRIES.map(({ file }) => file)), ENTRIES, isOwn);
    expect(describeForgotten(forgotten)).toBe('');
  });

  it('reports a type that a signature uses and no entry exports, with the declaration that uses it (private members aside)', () => {
    const dir = resolve('src', '__forgotten_probe__');
    const entry = resolve(dir, 'index.ts');
    const files = {
      [resolve(dir, 'options.ts')]: [
        'export interface HiddenOptions { retries?: number; nested?: Deeper }',
        'export interface Deeper { level: number }',
        'export type Shown = { ok: boolean };',
        'export function make(options: HiddenOptions): Shown { return { ok: options.retries !== 0 }; }',
        'export const inferred = () => ({ deeper: { level: 1 } as Deeper });',
        'interface PrivateOnly { key: string }',
        'class Base { #secret?: PrivateOnly; private hidden?: PrivateOnly; protected seen?: number }',
        'export class Store extends Base {}',
      ].join('\n'),
      [entry]: "export { make, inferred, Store } from './options.js';\nexport type { Shown } from './options.js';\n",
    };
    const forgotten = findForgottenExports(program([], files), [{ entry: 'probe', file: entry }], isOwn);
    expect(forgotten).toEqual([
      { entry: 'probe', name: 'HiddenOptions', usedBy: 'make' },
      { entry: 'probe', name: 'Deeper', usedBy: 'inferred' },
      { entry: 'probe', name: 'Base', usedBy: 'Store' },
    ]);
  });
});
