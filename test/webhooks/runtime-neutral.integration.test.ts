import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it, vi } from 'vitest';
// the Web Crypto build, which Workers, Deno, Bun and browsers load (the package name is the Node build here)
import * as web from '../../src/webhooks/index.js';

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
      // the package's `imports` (package.json) name dist/ files: here the Web flavour's source
      paths: { '#otel-api': [fileURLToPath(new URL('../../src/telemetry/otel-api.web.ts', import.meta.url))] },
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  }, 60_000);
});

describe('the Web Crypto build at run time', () => {
  it('verifies deliveries with crypto.subtle: a signed one is handled (200), a forged one refused (401)', async () => {
    const verify = vi.spyOn(crypto.subtle, 'verify');
    try {
      const seen: string[] = [];
      const handler = web.createWebhookHandler({
        secret: 'whsec-web',
        client: {
          getOrderByExternalId: () => Promise.reject(new Error('unused')),
          getWithdrawalByExternalId: () => Promise.reject(new Error('unused')),
        },
        onEvent: ({ event }) => void seen.push(event.eventId),
      });
      const body = JSON.stringify({ eventId: 'e-web', type: 'custom' });
      const post = (signature: string) =>
        handler.handle(
          new Request('https://partner.test/webhooks', { method: 'POST', headers: { 'x-provider-signature': signature }, body }),
        );
      expect((await post(await web.signPayload(body, 'whsec-web'))).status).toBe(200);
      expect((await post(await web.signPayload(body, 'another-secret'))).status).toBe(401);
      expect(seen).toEqual(['e-web']);
      expect(verify).toHaveBeenCalledTimes(2);
    } finally {
      verify.mockRestore();
    }
  });
});
