import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import * as esm from 'checkout-partner-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A second copy of the SDK in the same process, as an app gets when one dependency `require`s the
// package and another `import`s it: the entry bundled to CommonJS (as tsup builds dist/index.cjs).
// scripts/smoke-pack.mjs checks the same on the published dist/index.js and dist/index.cjs.
let cjs: typeof esm;
const work = mkdtempSync(join(tmpdir(), 'checkout-dual-'));

beforeAll(async () => {
  const outfile = join(work, 'index.cjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../../src/index.ts', import.meta.url))],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    outfile,
    logLevel: 'silent',
  });
  cjs = createRequire(import.meta.url)(outfile) as typeof esm;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('one error tree across the ESM and the CommonJS build', () => {
  it('the two builds are distinct classes (the dual package hazard this guards against)', () => {
    expect(cjs.NotFoundError).not.toBe(esm.NotFoundError);
  });

  it('an error of either build is instanceof the same class and its ancestors in the other', () => {
    const fromCjs = new cjs.NotFoundError('no such order', { status: 404 });
    expect(fromCjs instanceof esm.NotFoundError).toBe(true);
    expect(fromCjs instanceof esm.ApiError).toBe(true);
    expect(fromCjs instanceof esm.CheckoutError).toBe(true);
    const fromEsm = new esm.RateLimitError('slow down', { status: 429 });
    expect(fromEsm instanceof cjs.RateLimitError).toBe(true);
    expect(fromEsm instanceof cjs.CheckoutError).toBe(true);
  });

  it('an error is not instanceof a sibling or a subclass, from either build', () => {
    const fromCjs = new cjs.NotFoundError('no such order', { status: 404 });
    expect(fromCjs instanceof esm.RateLimitError).toBe(false);
    expect(new cjs.ApiError('x') instanceof esm.NotFoundError).toBe(false);
    expect(new esm.CheckoutError('x') instanceof cjs.ApiError).toBe(false);
    expect(fromCjs instanceof Error).toBe(true);
  });

  it('things that are not SDK errors stay outside', () => {
    class NotFoundError extends Error {}
    for (const value of [
      new NotFoundError('look-alike'),
      new Error('x'),
      { name: 'NotFoundError' },
      'NotFoundError',
      null,
      undefined,
      404,
    ]) {
      expect(value instanceof esm.NotFoundError).toBe(false);
      expect(value instanceof cjs.CheckoutError).toBe(false);
    }
  });
});
