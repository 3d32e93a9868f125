import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = (path: string) => fileURLToPath(new URL(`../../src/webhooks/${path}`, import.meta.url));

async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [src(entry)],
    bundle: true,
    write: false,
    platform: 'neutral',
    format: 'esm',
    external: ['ky', 'zod', 'jose', 'node:*'],
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

describe('entry points', () => {
  it('the neutral webhooks entry imports nothing from node:', async () => {
    const code = await bundle('index.ts');
    expect(code).toContain('crypto.subtle');
    expect(code).not.toMatch(/["']node:/);
  });

  it('the node entry computes HMACs with node:crypto', async () => {
    const code = await bundle('index.node.ts');
    expect(code).toMatch(/from ["']node:crypto["']/);
    expect(code).toContain('createSecretKey');
    expect(code).toContain('timingSafeEqual');
    expect(code).not.toContain('crypto.subtle');
  });

  it('the neutral webhooks entry type-checks without Node types', () => {
    const program = ts.createProgram([src('index.ts')], {
      target: ts.ScriptTarget.ES2023,
      lib: ['lib.es2024.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: true,
      types: [],
      noEmit: true,
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  }, 60_000);
});
