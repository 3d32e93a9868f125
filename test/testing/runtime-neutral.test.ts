import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createFakeCheckout, type FakeCheckout } from 'checkout-partner-sdk/testing';
import { describe, expect, it } from 'vitest';

type FakeRequestRecord = FakeCheckout['requests'][number];

const dir = fileURLToPath(new URL('../../src/testing/', import.meta.url));

describe('checkout-partner-sdk/testing stays loadable off Node', () => {
  it('has no static node: import; node:http is imported dynamically inside listen only', async () => {
    const files = (await readdir(dir)).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const source = await readFile(`${dir}${file}`, 'utf8');
      expect(source, file).not.toMatch(/^\s*import\s[^;]*from\s+['"]node:/m);
      // `require` only in the CommonJS build's branch (tsup drops it from the ESM build, see load-msw.ts)
      const esm = source.replaceAll(/if \(typeof __CHECKOUT_SDK_CJS__ === 'boolean' && __CHECKOUT_SDK_CJS__\) \{[^}]*\}/g, '');
      expect(esm, file).not.toMatch(/\brequire\(/);
      const dynamic = [...source.matchAll(/import\(\s*['"](node:[^'"]+)['"]\s*\)/g)].map((m) => m[1]);
      expect(dynamic, file).toEqual(file === 'node-server.ts' ? ['node:http'] : []);
    }
  });

  it('imports msw in the checkout-partner-sdk/testing/msw entry only (msw is an optional peer dependency)', async () => {
    const files = (await readdir(dir)).filter((f) => f.endsWith('.ts'));
    const importers: string[] = [];
    for (const file of files) {
      const source = await readFile(`${dir}${file}`, 'utf8');
      if (/^\s*import\s(?!type\b)[^;]*from\s+['"]msw/m.test(source)) importers.push(file);
    }
    expect(importers).toEqual(['msw.ts']);
  });

  it('serves without any Node API through fake.fetch, reporting each request to onRequest', async () => {
    const seen: FakeRequestRecord[] = [];
    const fake = createFakeCheckout({
      partners: [{ partnerId: 'p', partnerSecret: 's' }],
      onRequest: (record) => {
        seen.push(record);
        throw new Error('ignored');
      },
    });
    const response = await fake.fetch(
      new Request('https://x.test/api/v1/partner-api/auth/token', {
        method: 'POST',
        headers: { 'x-partner-id': 'p', 'x-partner-secret': 's' },
      }),
    );
    expect(response.status).toBe(200);
    expect(seen).toEqual([
      expect.objectContaining({ method: 'POST', status: 200, headers: expect.objectContaining({ 'x-partner-secret': '[redacted]' }) }),
    ]);
    expect(() => createFakeCheckout({ onRequest: 'log' as never })).toThrow(TypeError);
  });
});
